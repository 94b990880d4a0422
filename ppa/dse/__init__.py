"""Design-space exploration: sample architecture parameters, evaluate them, keep what fits, find the fronts.

A *space* (YAML, validated; every problem with its field path) names a base
architecture (or several, ``archs:``, chosen by the implicit ``arch``
parameter), the parameters to vary (generic paths into the description such as
``core.tensor_units.0.rows``, workload-wide paths such as
``workload.b_density``, or NeuroMeter's aliases ``X``, ``N``, ``Tx``, ``Ty``),
how to sample them (``grid``, ``random`` or Latin hypercube ``lhs``), derived
settings (``set:``, expressions of the parameters), filters (``where:``),
workloads and batch regimes, constraints (``min``/``max`` on any metric) and
objectives (metrics with a goal, ``max`` or ``min``). See ``examples/dse/``.

NeuroMeter's aliases (Tang et al., HPCA 2021, sect. III-A, Table I): ``X`` sets the rows
and the columns of tensor unit 0 (``X x X``), ``N`` its count per core, ``Tx``
and ``Ty`` the core grid: ``cores = Tx * Ty`` on a ring up to 4 cores and a
``Tx x Ty`` mesh beyond.

Evaluation of one point (:func:`evaluate_points`, :mod:`.evaluate`): the description with the
point's values is validated (an invalid combination is an infeasible point
with its reason), optionally sized (``archs.NAME.size``: the largest count of
a unit that fits an area, found by bisection on the estimator), estimated
(:func:`accelgen.ppa.estimate`: area, TDP, clock, peak TOPS), checked against
the chip-level constraints, and -- if it passes -- every workload is run at
every batch regime through the performance model (:mod:`accelgen.ppa.perf`,
vectorized over layers): ``batch: B`` or ``latency_ms: L`` (the largest batch
meeting ``L``). Metric columns: ``WORKLOAD.REGIME.METRIC`` per run,
``REGIME.METRIC`` (geometric mean over the workloads) and ``METRIC``
(geometric mean over all runs). Without workloads the space is evaluated at
chip level by the vectorized batch estimator (:mod:`accelgen.ppa.batch`, about a
million points per second): each point is the chip the estimator builds for it
(tensor units of the base's dtype, pipelined as ``pipeline: auto`` chooses; the SRAM, the data bus, the
vector unit and its register file, the scalar core, the NoC, the I/O, the supply
and the operand density of the base); a base field that path cannot cost (weight
loading, subnormal flushing, row grouping or given stages of the tensor unit, a
memory's bandwidth target, ports or instances, other compute units, a die budget,
zero-delay switching, a stimulus profile's models) is refused (``space._unbatched``).

Runs are chunked: each chunk of points is written to
``OUT/chunks/<key>-<index>.csv`` (atomically), where ``key`` hashes the
resolved space (base descriptions and workloads included), the chunk size and
the estimator's code and model files; a killed run restarts and evaluates only
the chunks that are missing. Chunks run in this process, in local processes
(``jobs``) or on a Dask cluster (``scheduler="tcp://HOST:PORT"``) through
:class:`accelgen.executor.Executor`; the results are the same.

Modules: :mod:`.schema` (the space file's pydantic schema), :mod:`.plan` (the typed, resolved
plan), :mod:`.space` (:func:`load_space`, :func:`resolve`), :mod:`.paths` (paths into
descriptions), :mod:`.point` (a point's architecture and workloads), :mod:`.sampling`,
:mod:`.evaluate`, :mod:`.pareto`, :mod:`.results`, :mod:`.plots` and :mod:`.runner`
(:func:`run`, :func:`explore`).
"""

from .evaluate import evaluate_chip_points, evaluate_chunk, evaluate_point, evaluate_points, sized
from .pareto import finish, pareto_mask
from .paths import check_path, set_path, with_values
from .plan import  (ALIASES, BATCH_CHIP_METRICS, BATCH_PATHS, CHIP_METRICS, RUN_METRICS, Base, Constraint, Objective,
                    Plan, PlanParam, Plot, Regime, Sampling, Size)
from .point import arch_for_point, workloads_for_point
from .results import DseResult, write_results
from .runner import code_fingerprint, explore, plan_key, run
from .sampling import sample
from .schema import Space
from .space import load_space, resolve

__all__ = ["ALIASES", "BATCH_CHIP_METRICS", "BATCH_PATHS", "CHIP_METRICS", "RUN_METRICS", "Base", "Constraint",
           "DseResult", "Objective", "Plan", "PlanParam", "Plot", "Regime", "Sampling", "Size", "Space",
           "arch_for_point", "check_path", "code_fingerprint", "evaluate_chip_points", "evaluate_chunk",
           "evaluate_point", "evaluate_points", "explore", "finish", "load_space", "pareto_mask", "plan_key",
           "resolve", "run", "sample", "set_path", "sized", "with_values", "workloads_for_point", "write_results"]
