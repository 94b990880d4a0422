"""Architecture-level PPA estimator. Reads fitted model files; never imports Amaranth."""
