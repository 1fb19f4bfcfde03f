"""serpsim's measures as ir_measures measures (ir_measures 0.4.3).

``import serpsim`` registers every name below with ir_measures, so that
``ir_measures.parse_measure("PRES@100")`` and measure objects work in ``ir_measures.calc``,
``calc_aggregate``, ``iter_calc``, ``evaluator`` and PyTerrier's ``pt.Experiment``. A provider
named ``serpsim`` computes them and is put first in ``ir_measures.DefaultPipeline``: it
evaluates every serpsim measure of a call together, in **one** call of the Rust library per
run (the code of ``serpsim eval``), not one per query or per measure.

Names (none is one of ir_measures' own; ``@k`` is the cutoff where one is allowed):

================================  ==========================================================
``S_AP``, ``S_P@k``, ``S_R@k``,   serpsim's implementation of the ir_measures measure of the
``S_nDCG@k``, ``S_RR``,           same name without ``S_`` (``S_nDCG@10`` is ``nDCG@10`` as
``S_Rprec``, ``S_Bpref``,         ``serpsim eval -m nDCG@10`` computes it, parameters
``S_infAP``, ``S_Success@k``,     included: ``S_P(rel=2)@5``, ``S_RBP(p=0.8)``,
``S_SetP``, ``S_SetR``,           ``S_INST(T=3)``). Values are trec_eval's (docs/metrics.md,
``S_SetF``, ``S_IPrec@r``,        "ir_measures spellings").
``S_NumRet``, ``S_NumRel``,
``S_NumRelRet``, ``S_RBP``,
``S_ERR@k``, ``S_INST``,
``S_INSQ``
``PRES@N``                        PRES with N_max = N (required)
``PRES_est@N``                    PRES estimated for N_max < n
``TBG(h=224,len=1000)``           time-biased gain
``CubeTest(gamma=,eq=,...)@k``    the Cube Test (needs subtopics: ir_measures' diversity qrels,
                                  the subtopic in ``iteration``, or ``subtopics=``)
``RRT(T=1)``, ``ERRT(T=1)``       reciprocal rank of the T-th relevant document, and its ERR
``INSQp(T=3)``                    INSQ' (Bailey et al. 2015)
``INST_depth``, ``INSQ_depth``,   the C/W/L expected depth of INST, INSQ, INSQ'
``INSQp_depth``
``RBP_tail(p=0.8)``               RBP's residual ``p^n``
``rrMetric@k(user=...)``,         click-model metrics with a Grotov et al. user model
``EBU@k(user=...,gamma=0.9)``
``Serpsim(m="...")``              any other ``serpsim eval -m`` name (``Serpsim(m="gm_map")``,
                                  ``Serpsim(m="utility")``, ``Serpsim(m="ndcg@10:discount=jarvelin")``)
``SimUser(profile=...,...)``      simulated users: the mean over a scenario's users of an outcome
                                  (default ``gain``) for a named profile, e.g. one with a time
                                  budget (``serpsim simulate``; one simulation per run)
================================  ==========================================================

PyTerrier's ``pt.Experiment`` reads strings in ``eval_metrics`` as trec_eval names, so give it
the objects (``from serpsim.measures import PRES, TBG``; ``PRES @ 100``) or
``ir_measures.parse_measure("PRES@100")``.

As in ir_measures, a query of the qrels that the run does not retrieve for is scored as an
empty ranking and counts in the mean (``serpsim eval -c``), so ``calc_aggregate`` equals
``serpsim eval -c``'s ``all`` value (the mean over the qrels' topics; the sum for counts).
``novelty_utility`` is not offered: it compares a run with the *other* runs of one
evaluation, which ir_measures does not give a measure.

>>> import ir_measures, pandas as pd, serpsim
>>> ir_measures.parse_measure("PRES@100")
PRES@100
>>> qrels = pd.DataFrame({"query_id": ["1"] * 3, "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]})
>>> run = pd.DataFrame({"query_id": ["1"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
>>> ir_measures.calc_aggregate([serpsim.measures.S_P @ 2], qrels, run)
{S_P@2: 0.5}

(By hand: the top two are a, relevant, and b, not: 1/2.)
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

from . import _serpsim
from ._tables import to_arrow

try:
    import ir_measures
    from ir_measures.measures.base import Measure, MeanAgg, ParamInfo, SumAgg
    from ir_measures.providers.base import Evaluator, Provider
    from ir_measures.util import Metric

    AVAILABLE = True
except ImportError:  # ir_measures is optional: the module then only says what is missing
    AVAILABLE = False

_INSTALL = "pip install ir-measures"


def _num(v: Any) -> str:
    """A parameter as serpsim's parser reads it (ints without a point, floats shortest)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


if AVAILABLE:

    class _SerpsimMeasure(Measure):
        """A measure computed by serpsim; ``serpsim_name()`` is its ``serpsim eval -m`` name."""

        SUM = False  # aggregated by a sum (counts) rather than a mean

        def serpsim_name(self) -> str:
            raise NotImplementedError

        def aggregator(self) -> Any:
            return SumAgg() if self.SUM else MeanAgg()

    def _passthrough(name: str, params: Dict[str, Any], at: Optional[str], count: bool = False) -> type:
        """``S_<name>``: ir_measures' measure ``name`` with ``params``, computed by serpsim
        under ir_measures' own spelling (serpsim's parser reads ir_measures' names)."""

        class _S(_SerpsimMeasure):
            SUPPORTED_PARAMS = params
            SUM = count
            __name__ = "S_" + name
            NAME = "S_" + name

            def serpsim_name(self) -> str:
                return repr(self)[2:]

        if at is not None:
            _S.AT_PARAM = at
        _S.__qualname__ = _S.__name__
        return _S

    def _p(dtype: Any = None, desc: str = "", **kw: Any) -> Any:
        return ParamInfo(dtype=dtype, desc=desc, **kw)

    _cut = {"cutoff": _p(int, "ranking cutoff threshold")}
    _rel = {"rel": _p(int, "minimum relevance score to be considered relevant (inclusive)")}
    _S_CLASSES = {
        "AP": _passthrough("AP", {**_cut, **_rel}, None),
        "P": _passthrough("P", {**_cut, **_rel}, None),
        "R": _passthrough("R", {**_cut, **_rel}, None),
        "nDCG": _passthrough("nDCG", dict(_cut), None),
        "RR": _passthrough("RR", {**_cut, **_rel}, None),
        "Rprec": _passthrough("Rprec", dict(_rel), None),
        "Bpref": _passthrough("Bpref", dict(_rel), None),
        "infAP": _passthrough("infAP", dict(_rel), None),
        "Success": _passthrough("Success", {**_cut, **_rel}, None),
        "SetP": _passthrough("SetP", dict(_rel), None),
        "SetR": _passthrough("SetR", dict(_rel), None),
        "SetF": _passthrough("SetF", {**_rel, "beta": _p((int, float), "relative importance of R to P")}, None),
        "IPrec": _passthrough("IPrec", {"recall": _p(float, "recall threshold"), **_rel}, "recall"),
        "NumRet": _passthrough("NumRet", dict(_rel), None, count=True),
        "NumRel": _passthrough("NumRel", dict(_rel), None, count=True),
        "NumRelRet": _passthrough("NumRelRet", dict(_rel), None, count=True),
        "RBP": _passthrough("RBP", {**_cut, **_rel, "p": _p((int, float), "persistence")}, None),
        "ERR": _passthrough("ERR", dict(_cut), None),
        "INST": _passthrough("INST", {"T": _p((int, float), "expected relevant documents")}, None),
        "INSQ": _passthrough("INSQ", {"T": _p((int, float), "expected relevant documents")}, None),
    }
    S_AP = _S_CLASSES["AP"]()
    S_P = _S_CLASSES["P"]()
    S_R = _S_CLASSES["R"]()
    S_nDCG = _S_CLASSES["nDCG"]()
    S_RR = _S_CLASSES["RR"]()
    S_Rprec = _S_CLASSES["Rprec"]()
    S_Bpref = _S_CLASSES["Bpref"]()
    S_infAP = _S_CLASSES["infAP"]()
    S_Success = _S_CLASSES["Success"]()
    S_SetP = _S_CLASSES["SetP"]()
    S_SetR = _S_CLASSES["SetR"]()
    S_SetF = _S_CLASSES["SetF"]()
    S_IPrec = _S_CLASSES["IPrec"]()
    S_NumRet = _S_CLASSES["NumRet"]()
    S_NumRel = _S_CLASSES["NumRel"]()
    S_NumRelRet = _S_CLASSES["NumRelRet"]()
    S_RBP = _S_CLASSES["RBP"]()
    S_ERR = _S_CLASSES["ERR"]()
    S_INST = _S_CLASSES["INST"]()
    S_INSQ = _S_CLASSES["INSQ"]()

    def _keyed(base: str, params: Dict[str, Any], keys: Dict[str, str], at: Optional[str] = "cutoff") -> str:
        """``base[@k][:key=value,...]`` from the given parameters (serpsim's syntax)."""
        name = base
        if at is not None and params.get(at) is not None:
            name += f"@{_num(params[at])}"
        kv = [f"{keys[k]}={_num(v)}" for k, v in params.items() if k != at and k in keys and v is not None]
        return name + (":" + ",".join(kv) if kv else "")

    class _PRES(_SerpsimMeasure):
        """PRES (Magdy and Jones 2010) with N_max = the cutoff: ``PRES@100``."""

        __name__ = NAME = "PRES"
        SUPPORTED_PARAMS = {"cutoff": _p(int, "N_max", required=True)}

        def serpsim_name(self) -> str:
            return f"pres@{self.params['cutoff']}"

    class _PRESest(_SerpsimMeasure):
        """PRES / min(1, N_max / n), for N_max below the number of relevant documents."""

        __name__ = NAME = "PRES_est"
        SUPPORTED_PARAMS = {"cutoff": _p(int, "N_max", required=True)}

        def serpsim_name(self) -> str:
            return f"pres_est@{self.params['cutoff']}"

    class _TBG(_SerpsimMeasure):
        """Time-biased gain (Smucker and Clarke 2012): ``TBG``, ``TBG(h=224,len=1000)``."""

        __name__ = NAME = "TBG"
        SUPPORTED_PARAMS = {"h": _p((int, float), "half-life in seconds"), "len": _p(int, "document length in words when unknown")}

        def serpsim_name(self) -> str:
            return _keyed("tbg", self.params, {"h": "h", "len": "len"}, at=None)

    class _CubeTest(_SerpsimMeasure):
        """The Cube Test (Luo et al. 2013): ``CubeTest(gamma=0.5)@10``; keys as ``ct:`` in
        docs/metrics.md. Needs subtopic qrels."""

        __name__ = NAME = "CubeTest"
        SUPPORTED_PARAMS = {
            "cutoff": _p(int, "depth |D|"),
            "gamma": _p((int, float), "novelty discount"),
            "eq": _p(int, "11 or 13", choices=[11, 13]),
            "cap": _p(str, "indicator, truncate or decay", choices=["indicator", "truncate", "decay"]),
            "height": _p((int, float), "MaxHeight"),
            "weights": _p(str, "uniform, l or p", choices=["uniform", "l", "p"]),
            "time": _p(str, "t, a, g or d", choices=["t", "a", "g", "d"]),
            "time0": _p(str, "inclusive or literal", choices=["inclusive", "literal"]),
        }

        def serpsim_name(self) -> str:
            return _keyed("ct", self.params, {k: k for k in self.SUPPORTED_PARAMS})

    def _t_measure(name: str, serp: str, doc: str, extra: Optional[Dict[str, Any]] = None) -> type:
        params = {"T": _p((int, float), "expected relevant documents (or T of RRT/ERRT)"), **(extra or {})}

        class _M(_SerpsimMeasure):
            __doc__ = doc
            SUPPORTED_PARAMS = params
            __name__ = NAME = name

            def serpsim_name(self) -> str:
                return _keyed(serp, self.params, {"T": "t", "gain": "gain"}, at=None)

        _M.__qualname__ = name
        return _M

    _gain = {"gain": _p(str, "binary or graded", choices=["binary", "graded"])}
    _RRT = _t_measure("RRT", "rrt", "T / rank of the T-th relevant document (0 if fewer): ``RRT(T=2)``.")
    _ERRT = _t_measure("ERRT", "errt", "ERRT(T) = (1/T) sum_t ((T-1)/T)^(t-1) RRT(t).")
    _INSQp = _t_measure("INSQp", "insq'", "INSQ' (Bailey et al. 2015): ``INSQp(T=3)``.", _gain)
    _INST_depth = _t_measure("INST_depth", "inst_depth", "INST's C/W/L expected depth.", _gain)
    _INSQ_depth = _t_measure("INSQ_depth", "insq_depth", "INSQ's C/W/L expected depth.", _gain)
    _INSQp_depth = _t_measure("INSQp_depth", "insq'_depth", "INSQ''s C/W/L expected depth.", _gain)

    class _RBP_tail(_SerpsimMeasure):
        """RBP's residual ``p^n`` for n retrieved documents: ``RBP_tail(p=0.8)``."""

        __name__ = NAME = "RBP_tail"
        SUPPORTED_PARAMS = {"p": _p((int, float), "persistence")}

        def serpsim_name(self) -> str:
            return _keyed("rbp_tail", self.params, {"p": "p"}, at=None)

    _user = {
        "cutoff": _p(int, "depth"),
        "user": _p(str, "perfect, navigational or informational", choices=["perfect", "navigational", "informational"]),
        "click_rel": _p((int, float), "P(click | relevant)"),
        "click_nonrel": _p((int, float), "P(click | not relevant)"),
        "sat_rel": _p((int, float), "P(satisfied | relevant)"),
        "sat_nonrel": _p((int, float), "P(satisfied | not relevant)"),
    }

    class _rrMetric(_SerpsimMeasure):
        """Grotov et al.'s rrMetric (Eq. 3) with a Table 1 user model: ``rrMetric(user='perfect')@10``."""

        __name__ = NAME = "rrMetric"
        SUPPORTED_PARAMS = dict(_user)

        def serpsim_name(self) -> str:
            return _keyed("rrmetric", self.params, {k: k for k in self.SUPPORTED_PARAMS})

    class _EBU(_SerpsimMeasure):
        """Expected browsing utility with a Grotov et al. user model: ``EBU(gamma=0.9)@10``."""

        __name__ = NAME = "EBU"
        SUPPORTED_PARAMS = {**_user, "gamma": _p((int, float), "continuation")}

        def serpsim_name(self) -> str:
            return _keyed("ebu", self.params, {k: k for k in self.SUPPORTED_PARAMS})

    class _Serpsim(_SerpsimMeasure):
        """Any ``serpsim eval -m`` name: ``Serpsim(m='gm_map')``. Counts (``num_ret``, ...) are
        summed; everything else is averaged (gm_map's geometric mean is serpsim's ``all``
        value only through ``serpsim.evaluate``; here ir_measures averages)."""

        __name__ = NAME = "Serpsim"
        SUPPORTED_PARAMS = {"m": _p(str, "a serpsim eval -m name", required=True)}

        def serpsim_name(self) -> str:
            return str(self.params["m"])

        def aggregator(self) -> Any:
            name = str(self.params.get("m", ""))
            return SumAgg() if name.split("@")[0].split(":")[0].split(".")[0].lower() in _COUNTS else MeanAgg()

    _COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_q", "num_nonrel_judged_ret"}

    PRES = _PRES()
    PRES_est = _PRESest()
    TBG = _TBG()
    CubeTest = _CubeTest()
    RRT = _RRT()
    ERRT = _ERRT()
    INSQp = _INSQp()
    INST_depth = _INST_depth()
    INSQ_depth = _INSQ_depth()
    INSQp_depth = _INSQp_depth()
    RBP_tail = _RBP_tail()
    rrMetric = _rrMetric()
    EBU = _EBU()
    Serpsim = _Serpsim()

    #: Every measure object this module registers, by name.
    MEASURES: Dict[str, Any] = {
        m.NAME: m
        for m in [S_AP, S_P, S_R, S_nDCG, S_RR, S_Rprec, S_Bpref, S_infAP, S_Success, S_SetP, S_SetR, S_SetF, S_IPrec,
                  S_NumRet, S_NumRel, S_NumRelRet, S_RBP, S_ERR, S_INST, S_INSQ, PRES, PRES_est, TBG, CubeTest, RRT,
                  ERRT, INSQp, INST_depth, INSQ_depth, INSQp_depth, RBP_tail, rrMetric, EBU, Serpsim]
    }

    def _column(frame: Any, *names: str) -> Optional[str]:
        for n in names:
            if n in frame.columns:
                return n
        return None

    def _table(obj: Any, kind: str) -> Any:
        """ir_measures' qrels or run (a DataFrame, dict of dicts, iterable of namedtuples, or a
        TREC file path) as an Arrow table with ir_measures' columns."""
        import pandas as pd
        import pyarrow as pa

        if not isinstance(obj, pd.DataFrame) and not isinstance(obj, pa.Table) and not hasattr(obj, "__arrow_c_stream__"):
            conv = ir_measures.util.QrelsConverter(obj) if kind == "qrels" else ir_measures.util.RunConverter(obj)
            obj = conv.as_pd_dataframe()
        if isinstance(obj, pd.DataFrame):
            cols = ["query_id", "doc_id", "relevance"] if kind == "qrels" else ["query_id", "doc_id", "score"]
            if kind == "qrels" and "iteration" in obj.columns:
                cols = cols + ["iteration"]
            missing = [c for c in cols if c not in obj.columns]
            if missing:
                raise ValueError(f"{kind}: missing column(s) {', '.join(missing)} (columns present: {', '.join(map(str, obj.columns))})")
            obj = obj[cols]
        return to_arrow(obj, kind)

    def _diversity_qrels(qrels: Any) -> Tuple[Any, Any]:
        """ir_measures' diversity qrels (the subtopic in ``iteration``, as its ``alpha_nDCG``
        and ``ERR_IA`` take them) split into document qrels (the largest grade of each
        document) and subtopic qrels, for the Cube Test. Qrels whose ``iteration`` is a
        constant (``0``, ``Q0``) are left as they are."""
        import pandas as pd

        if not isinstance(qrels, pd.DataFrame):
            return qrels, None
        if "iteration" not in qrels.columns or qrels["iteration"].astype(str).nunique() <= 1:
            return qrels, None
        sub = qrels.rename(columns={"iteration": "subtopic"})[["query_id", "subtopic", "doc_id", "relevance"]]
        docs = qrels.groupby(["query_id", "doc_id"], sort=False, as_index=False)["relevance"].max()
        return docs, sub

    class SerpsimEvaluator(Evaluator):
        """Evaluates runs against one set of qrels: one library call per run for every
        serpsim measure asked for."""

        def __init__(self, measures: Iterable[Any], qrels: Any, subtopics: Any = None) -> None:
            measures = list(measures)
            if subtopics is None and any(isinstance(m, _CubeTest) for m in measures):
                qrels, subtopics = _diversity_qrels(qrels)
            qrels_table = _table(qrels, "qrels")
            qids = sorted(set(str(q) for q in qrels_table.column("query_id").to_pylist()))
            super().__init__(measures, qids)
            self._qrels = qrels_table
            self._subtopics = subtopics if subtopics is None else _subtopic_table(subtopics)
            self._eval = [m for m in measures if not isinstance(m, _SimUser)]
            # Simulated-user measures, one simulation per scenario, replicates and seed.
            self._sim: Dict[Any, List[Any]] = {}
            for m in measures:
                if isinstance(m, _SimUser):
                    self._sim.setdefault(m.simulation_key(), []).append(m)
            self._names = [m.serpsim_name() for m in self._eval]
            # One label per distinct name, in order: the library evaluates each name once.
            self._unique = list(dict.fromkeys(self._names))
            # The library's label of each name (a clear error now for a name it does not
            # know); its columns come in its own order, so values are matched by label.
            self._label = {n: _serpsim.measure_label(n) for n in self._unique}
            labels = list(self._label.values())
            if len(set(labels)) != len(labels) or any(" " in x for x in labels):
                raise ValueError(f"serpsim: the names {self._unique} give the columns {labels}: give names that make one column each")

        def _iter_calc(self, run: Any) -> Iterator[Any]:
            table = _table(run, "run")
            if self._eval:
                yield from self._iter_eval(table)
            for key, ms in self._sim.items():
                yield from _simulated(key, ms, self._qrels, table)

        def _iter_eval(self, table: Any) -> Iterator[Any]:
            from . import _jobs

            job = _serpsim.evaluate(self._qrels, [("run", table)], self._unique, True, None, self._subtopics)
            ev = _jobs.run(job, False)
            per = ev.per_query()  # run, query_id, measure, value (one row per query and label)
            by_label = {label: name for name, label in self._label.items()}
            if sorted(ev.measures) != sorted(by_label):
                raise ValueError(f"serpsim: the names {self._unique} gave the columns {list(ev.measures)}, expected {sorted(by_label)}")
            q = per.column("query_id").to_pylist()
            m = per.column("measure").to_pylist()
            v = per.column("value").to_pylist()
            measures_of: Dict[str, List[Any]] = {}
            for measure, name in zip(self._eval, self._names):
                measures_of.setdefault(name, []).append(measure)
            for qid, label, value in zip(q, m, v):
                for measure in measures_of[by_label[label]]:
                    yield Metric(query_id=qid, measure=measure, value=value)

    class _SimUser(_SerpsimMeasure):
        """Simulated users: per query, the mean over a scenario's simulated users of one of
        ``serpsim simulate``'s outcome measures (``gain``, ``relevant_found``,
        ``rate_of_gain``, ``time``, ``effort``, ``clicks``, ...) for one of its profiles, the
        run being the system: ``SimUser(profile='patient')``, ``SimUser(profile='hurried',
        measure='gain', scenario='my.toml', replicates=1000, seed=1)``. A profile with a time
        budget gives the expected gain within that budget. The values are the ``mean`` of
        ``serpsim simulate --detail full``'s ``summary.csv`` (system ``run``) over this run and
        the qrels, the scenario's collection replaced by them (its ideal ranking dropped)."""

        __name__ = NAME = "SimUser"
        SUPPORTED_PARAMS = {
            "profile": _p(str, "a profile of the scenario", required=True),
            "measure": _p(str, "an outcome measure of serpsim simulate", default="gain"),
            "scenario": _p(str, "a scenario file (default: the embedded default scenario)", default=None),
            "replicates": _p(int, "simulated users per topic, system and profile", default=1000),
            "seed": _p(int, "the simulation's seed", default=1),
        }

        def simulation_key(self) -> Tuple[Any, int, int]:
            return (self["scenario"], int(self["replicates"]), int(self["seed"]))

        def serpsim_name(self) -> str:
            raise ValueError("SimUser is computed by serpsim simulate, not serpsim eval")

    def _simulated(key: Tuple[Any, int, int], measures: List[Any], qrels: Any, run: Any) -> Iterator[Any]:
        """One simulation of the run for every SimUser measure of one scenario."""
        from .simulation import _scenario_dict, simulate

        scenario, replicates, seed = key
        sc, base = _scenario_dict(scenario, None)
        coll = sc.setdefault("collection", {})
        coll.pop("ideal_system", None)
        r = simulate(sc, base=base, runs={"run": run.to_pandas()}, qrels=qrels.to_pandas(), replicates=replicates, seed=seed,
                     samples=False, detail="full", progress=False)
        s = r.summary
        s = s[s["system"] == "run"]
        for m in measures:
            rows = s[(s["profile"] == m["profile"]) & (s["measure"] == m["measure"])]
            if len(rows) == 0:
                profiles = sorted(set(s["profile"]))
                known = sorted(set(s["measure"]))
                raise ValueError(f"{m!r}: the simulation has no profile `{m['profile']}` with measure `{m['measure']}` (profiles: {profiles}; measures: {known})")
            for qid, value in zip(rows["topic"], rows["mean"]):
                yield Metric(query_id=str(qid), measure=m, value=float(value))

    SimUser = _SimUser()
    MEASURES["SimUser"] = SimUser

    def _subtopic_table(obj: Any) -> Any:
        import pandas as pd

        if isinstance(obj, pd.DataFrame) and "subtopic" not in obj.columns and "iteration" in obj.columns:
            obj = obj.rename(columns={"iteration": "subtopic"})
        if isinstance(obj, pd.DataFrame):
            obj = obj.astype({"subtopic": str})
        return to_arrow(obj, "subtopics")

    class SerpsimProvider(Provider):
        """ir_measures provider of serpsim's measures (registered as ``serpsim``).

        ``ir_measures.providers.registry["serpsim"].evaluator(measures, qrels, subtopics=...)``
        takes subtopic qrels (``query_id``, ``subtopic`` (or ``iteration``), ``doc_id``,
        ``relevance``) for ``CubeTest``."""

        NAME = "serpsim"

        def supports(self, measure: Any) -> bool:
            if not isinstance(measure, _SerpsimMeasure):
                return False
            measure.validate_params()
            return True

        def _evaluator(self, measures: Iterable[Any], qrels: Any, subtopics: Any = None) -> Any:
            return SerpsimEvaluator(measures, qrels, subtopics)

        def evaluator(self, measures: Iterable[Any], qrels: Any, subtopics: Any = None) -> Any:
            return self._evaluator(measures, qrels, subtopics)

        def install_instructions(self) -> str:
            return "pip install serpsim"

    provider = SerpsimProvider()

    def _register() -> None:
        """Registers the names and the provider (first in ir_measures' default pipeline).
        Idempotent: importing serpsim twice (or reloading it) registers nothing twice."""
        reg = ir_measures.measures.registry
        for name, m in MEASURES.items():
            if name in reg and reg[name] is not type(m) and not getattr(reg[name], "_serpsim", False):
                raise RuntimeError(f"ir_measures already has a measure named {name}: serpsim does not replace it")
            type(m)._serpsim = True
            reg[name] = type(m)
        ir_measures.providers.registry["serpsim"] = provider
        pipeline = ir_measures.DefaultPipeline.providers
        pipeline[:] = [p for p in pipeline if getattr(p, "NAME", None) != "serpsim"]
        pipeline.insert(0, provider)

    _register()


def names() -> List[str]:
    """The measure names this module registers with ir_measures."""
    if not AVAILABLE:
        raise ImportError(f"serpsim.measures needs ir_measures ({_INSTALL})")
    return list(MEASURES)


def serpsim_name(measure: Any) -> str:
    """The ``serpsim eval -m`` name of a serpsim ir_measures measure (or of its string)."""
    if not AVAILABLE:
        raise ImportError(f"serpsim.measures needs ir_measures ({_INSTALL})")
    m = ir_measures.parse_measure(measure) if isinstance(measure, str) else measure
    if not isinstance(m, _SerpsimMeasure):
        raise ValueError(f"{measure!r} is not one of serpsim's measures ({', '.join(MEASURES)})")
    m.validate_params()
    return m.serpsim_name()


__all__ = ["names", "serpsim_name", "AVAILABLE"] + (list(MEASURES) + ["provider", "MEASURES"] if AVAILABLE else [])
