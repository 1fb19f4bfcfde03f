"""Type stubs of the compiled extension ``serpsim._serpsim`` (the Rust binding). The public,
documented API is the pure-Python package around it; these stubs let IDEs and type checkers
follow the calls through."""

from typing import Any, Dict, List, Optional, Sequence, Tuple

import pyarrow as pa

_Table = Any  # a pyarrow Table / RecordBatchReader or any object with __arrow_c_stream__
_Path = str

def version() -> str: ...

class Job:
    """A library call running on a worker thread without the GIL."""

    def poll(self) -> Tuple[str, str, int, Optional[int], str, float]: ...
    def done(self) -> bool: ...
    def wait(self, seconds: float) -> bool: ...
    def cancel(self) -> None: ...
    def result(self) -> Any: ...

# Click models ---------------------------------------------------------------------------------

class ClickModel:
    @property
    def kind(self) -> str: ...
    @property
    def sessions(self) -> int: ...
    def to_json(self) -> str: ...
    def save(self, path: _Path) -> None: ...
    @property
    def label_notes(self) -> List[str]: ...
    @property
    def grade_report(self) -> List[str]: ...
    def grades_json(self) -> Optional[str]: ...
    def param_tables(self) -> Tuple[Dict[str, float], Dict[str, List[float]], Dict[str, List[List[float]]], pa.RecordBatch]: ...
    def evaluate(self, test: _Table, known_queries_only: bool = True) -> Dict[str, Any]: ...
    def click_probabilities(self, serps: _Table) -> pa.RecordBatch: ...
    def simulate(self, serps: _Table, n: int = 1, seed: int = 1) -> pa.RecordBatch: ...

class Labels: ...

def labels(
    path: Optional[_Path],
    name: Optional[str] = None,
    label_format: Optional[str] = None,
    label_columns: "Optional[str | Dict[str, int]]" = None,
    label_header: bool = False,
    unjudged: Optional[int] = None,
    unjudged_grade: Optional[int] = None,
    grade_map: "Optional[str | Dict[int, int]]" = None,
    grade_bootstrap: Optional[int] = None,
    seed: int = 1,
) -> Optional[Labels]: ...
def fit_table(log: _Table, model: str, iterations: int = 50, tolerance: Optional[float] = None, gamma: Optional[float] = None, threads: Optional[int] = None, labels: Optional[Labels] = None, prior: Optional[str] = None) -> Job: ...
def fit_path(path: _Path, model: str, format: str = "yandex", iterations: int = 50, tolerance: Optional[float] = None, gamma: Optional[float] = None, skip_bad_lines: bool = False, threads: Optional[int] = None, labels: Optional[Labels] = None, prior: Optional[str] = None) -> Job: ...
def fit_posterior(
    log: Optional[_Table],
    path: Optional[_Path],
    model: str,
    prior: str,
    level: float,
    chains: int,
    warmup: int,
    samples: int,
    thin: int,
    seed: int,
    draws: int,
    gamma: Optional[float],
    top_examination: Optional[float],
    exact: bool,
    format: str,
    skip_bad_lines: bool,
) -> Job: ...
def read_log_path(path: _Path, format: str = "yandex", skip_bad_lines: bool = False) -> Job: ...
def load(path: _Path) -> ClickModel: ...
def loads(text: str, name: str = "<string>") -> ClickModel: ...
def validate_orderings(log: Optional[_Table], path: Optional[_Path], models: List[str], folds: int, seed: int, iterations: int, tolerance: Optional[float], replicates: int, bootstrap: int, level: float, min_pair_sessions: int, format: str, skip_bad_lines: bool) -> Job: ...

# Evaluation -----------------------------------------------------------------------------------

class Evaluation:
    @property
    def runs(self) -> List[str]: ...
    @property
    def measures(self) -> List[str]: ...
    @property
    def query_ids(self) -> List[str]: ...
    @property
    def dropped_topics(self) -> List[int]: ...
    def per_query(self) -> pa.RecordBatch: ...
    def aggregate(self) -> pa.RecordBatch: ...
    def agreement(self) -> pa.RecordBatch: ...
    def compare(self, seed: int = 1, resamples: int = 10000) -> pa.RecordBatch: ...
    def to_text(self, format: str = "csv", per_query: bool = False) -> str: ...
    def agreement_csv(self) -> str: ...
    def compare_csv(self, seed: int = 1, resamples: int = 10000) -> str: ...
    def ci(self, method: str = "bca", level: float = 0.95, resamples: int = 10000, seed: int = 1, test: str = "randomisation", order: Optional[List[int]] = None) -> Tuple[pa.RecordBatch, pa.RecordBatch]: ...

def evaluate(qrels: Any, runs: Sequence[Tuple[Optional[str], Any]], measures: Sequence[str], complete: bool = False, threads: Optional[int] = None, subtopics: Any = None) -> Job: ...
def measure_label(name: str) -> str: ...
def paired_test(x: Sequence[float], y: Sequence[float], kind: str) -> Tuple[float, float]: ...

# Simulation -----------------------------------------------------------------------------------

def simulate(
    out: _Path,
    path: Optional[_Path] = None,
    text: Optional[str] = None,
    json: Optional[str] = None,
    base: Optional[_Path] = None,
    replicates: Optional[int] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    samples: bool = True,
    detail: Optional[str] = None,
) -> Job: ...
def default_scenario() -> str: ...
def scenario_from_files(
    qrels: str,
    runs: List[str],
    profiles: List[str] = ...,
    robust: bool = False,
    topics: Optional[List[str]] = None,
    ideal: bool = False,
    allow_partial_judgements: bool = False,
) -> str: ...

# Study logs -----------------------------------------------------------------------------------

def read_asc(path: _Path) -> Job: ...
def asc_summary(path: _Path) -> str: ...
def detect_fixations(
    samples: _Table,
    screen_px: Tuple[float, float],
    method: str = "idt",
    screen_cm: Tuple[float, float] = (38.0, 30.2),
    distance_cm: float = 68.0,
    rate: Optional[float] = None,
    dispersion: Optional[float] = None,
    velocity: Optional[float] = None,
    window_ms: Optional[float] = None,
    min_duration: Optional[float] = None,
    max_gap: float = 75.0,
    merge_gap: Optional[float] = None,
    merge_angle: Optional[float] = None,
    merge: bool = True,
) -> Job: ...
def detect_file(
    path: _Path,
    method: str = "idt",
    screen_cm: Tuple[float, float] = (38.0, 30.2),
    distance_cm: float = 68.0,
    screen_px: Optional[Tuple[float, float]] = None,
    rate: Optional[float] = None,
    dispersion: Optional[float] = None,
    velocity: Optional[float] = None,
    window_ms: Optional[float] = None,
    min_duration: Optional[float] = None,
    max_gap: float = 75.0,
    merge_gap: Optional[float] = None,
    merge_angle: Optional[float] = None,
    merge: bool = True,
) -> Job: ...
def map_aois(aoi_source: Any, page: str, x: List[float], y: List[float]) -> pa.RecordBatch: ...
def attention(log: _Path, source: str = "fixations") -> Job: ...

# BARACO and WordNet ---------------------------------------------------------------------------

def compare_rankers(
    log: Any,
    production: Any,
    candidates: Any,
    epsilon: float = 0.01,
    delta: float = 0.05,
    samples: int = 1000,
    gamma: float = 0.9,
    depth: int = 10,
    metric: str = "rrmetric",
    sampler: str = "inverse-cdf",
    seed: int = 1,
    threads: Optional[int] = None,
) -> Job: ...
def wordnet_scores(measure: str, word1: List[str], word2: List[str], pos: List[str], wordnet: Optional[_Path] = None) -> Job: ...
def wordnet_default_dir() -> str: ...

# Spark (serpsim.spark builds on these; see docs/scale.md) -------------------------------------

class SparkFit:
    """Driver side of a distributed EM fit: the query-independent parameters, their M-step,
    and at the end the model merged from the shards' pair rows."""
    def __init__(self, model: str, iterations: int = 50, gamma: Optional[float] = None, prior: Optional[str] = None) -> None: ...
    @property
    def passes(self) -> int: ...
    @property
    def done(self) -> int: ...
    @property
    def sessions(self) -> int: ...
    @property
    def pairs(self) -> int: ...
    def globals(self) -> bytes: ...
    def m_step(self, parts: List[bytes]) -> None: ...
    def finish(self, parts: List[bytes]) -> float: ...
    def model_json(self) -> str: ...

class SparkShard:
    """Executor side: one partition's shard (sessions by query) built from its Arrow batches."""
    def __init__(self) -> None: ...
    def add(self, batch: Any) -> None: ...
    def finish(self) -> Tuple[bytes, bytes, int, int]: ...

def spark_step(sessions: bytes, params: bytes, globals: bytes) -> Tuple[bytes, bytes]:
    """One EM pass on a shard: (statistics of the query-independent parameters, new pair parameters)."""
    ...

def spark_finish(sessions: bytes, params: bytes, names: bytes, globals: bytes) -> bytes:
    """A shard's log-likelihood sum and pair rows (key, ids, parameters) for the final model."""
    ...

class ShardedScenario:
    """A scenario prepared for a sharded (Spark) run: the driver and every task build it from
    the same arguments, so they see the same world and units."""
    def __init__(
        self,
        out: _Path,
        path: Optional[_Path] = None,
        text: Optional[str] = None,
        json: Optional[str] = None,
        base: Optional[_Path] = None,
        replicates: Optional[int] = None,
        seed: Optional[int] = None,
    ) -> None: ...
    @property
    def units(self) -> int: ...
    def run_units(self, first: int, end: int, threads: int = 1) -> bytes: ...
    def write(self, states: List[bytes]) -> Tuple[List[str], List[str]]: ...
