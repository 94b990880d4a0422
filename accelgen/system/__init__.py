"""One description, three views: the accelerator an architecture file describes as Verilog
(:mod:`accelgen.system.arch`), run on layers in cosim (:mod:`accelgen.system.run`), against the estimate and the
performance prediction of the same file. It joins the generators, the cosim and the estimator, so it sits
downstream of all three; only the command line imports it."""
