"""The method table: a row per boosting strategy, per forest kind and per projection scheme.

Everything the layers above know about a method is read from its row here: its names, the
paper it comes from, whether it takes q, the columns its split search sees, its trees per step,
where Newton leaves apply, its colour, its one-line description and its cost coefficients. The
estimator registry, engine.names, the legend, the cost model, the page models and the pages all
read these rows; none of them spells a method out again.

Adding a boosting strategy: its compiled step (an ``engine._core.Strategy`` member) plus one
:class:`BoostingRow` in ``BOOSTING``. Adding a projection scheme: its draw function
(engine/projection_schemes.py) plus one :class:`SchemeRow` in ``SCHEMES``. Every name, list,
legend entry, widget and cost estimate follows (tests/test_method_table.py shows both with a toy
row).

Paper numbers: 002 = gradient boosting with random output projections, 003 = random forests on
projected outputs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from engine.projection_schemes import draw_achlioptas, draw_gaussian, draw_sparse, draw_subsample

__all__ = ["BoostingRow", "ForestRow", "SchemeRow", "BOOSTING", "FORESTS", "SCHEMES",
           "register", "columns", "boosting_name", "forest_name", "boosting_names", "forest_names",
           "method_of", "method_colours", "scheme_help"]

# Split-target columns and trees per step, in the papers' symbols: 1, q (projections) or d (outputs).
SIZES = ("1", "q", "d")


def columns(size, q, d):
    """The number a size symbol stands for: "1" -> 1, "q" -> q, "d" -> d."""
    return {"1": 1, "q": q, "d": d}[size]


@dataclass(frozen=True)
class BoostingRow:
    """One boosting strategy: the estimators' ``strategy`` value and what it means.

    ``name`` is the paper's name (with ``-<scheme suffix>`` for a projected strategy);
    ``core_step`` the ``engine._core.Strategy`` member its step runs; ``split_columns`` the
    columns of split targets its tree is grown on; ``trees_per_step`` its trees in one step;
    ``newton_refusal`` why Newton leaves do not apply (None: they do, per output at every
    leaf); ``relabels`` the strategy whose leaves it refills with unprojected means (the One
    step page shows it as that strategy's "relabel" switch); ``cost_columns`` (a, b, c): the
    outputs one step's work is proportional to, a + b q + c d (engine.app.page_models.cost);
    ``colour`` the colour of its instance ``colour_scheme`` (None: the method itself) on every
    chart.
    """

    strategy: str
    name: str
    paper: str
    core_step: str
    projected: bool
    takes_q: bool
    split_columns: str
    trees_per_step: str
    description: str
    cost_columns: tuple
    newton_refusal: str | None = None
    relabels: str | None = None
    colour: str | None = None
    colour_scheme: str | None = None
    family: str = "boosting"


@dataclass(frozen=True)
class ForestRow:
    """One forest kind. A projected kind makes one method per scheme, ``rf-<suffix>-<kind>``;
    ``config`` holds the estimator parameters that make it (engine.estimators.registry)."""

    kind: str
    paper: str
    projected: bool
    takes_q: bool
    split_columns: str
    trees_per_tree: str
    description: str
    config: dict = field(default_factory=dict)
    colour: str | None = None
    family: str = "forest"


@dataclass(frozen=True)
class SchemeRow:
    """One random projection scheme (paper 002, section 2.3).

    ``suffix`` is its part of a method's name (the paper writes "subsampled" in names);
    ``label`` its series name on the forests' charts; ``description`` what the legend says;
    ``entries`` how Phi's entries are drawn (the pages' help); ``dense`` whether the boosting
    core multiplies it densely (a third or more of the entries are non-zero);
    ``q_at_most_d`` whether q may not exceed d; ``step_cost`` seconds per n x d x q of a
    boosting step's projection and ``tree_reads`` the outputs a forest tree's projection reads
    per sample and row ("1" or "d"), for the cost model.
    """

    scheme: str
    suffix: str
    label: str
    description: str
    entries: str
    draw: Callable
    dense: bool
    step_cost: float
    tree_reads: str = "d"
    q_at_most_d: bool = False
    colour: str | None = None
    family: str = "scheme"


BOOSTING = {row.strategy: row for row in (
    BoostingRow("single_target", "st-gbrt", "paper 002, Algorithm 1 per output", "SINGLE_TARGET",
                projected=False, takes_q=False, split_columns="1", trees_per_step="d",
                description="one single-output tree per output at every step (a step is d trees)",
                cost_columns=(1, 0, 0), colour="#1f77b4"),
    BoostingRow("multi_output", "gbmort", "paper 002, Algorithm 2", "MULTI_OUTPUT",
                projected=False, takes_q=False, split_columns="d", trees_per_step="1",
                description="one multi-output tree per step, grown on all d residuals at once",
                cost_columns=(0, 0, 1), colour="#d62728"),
    BoostingRow("projected", "gbrt-rpo", "paper 002, Algorithm 3", "PROJECTED",
                projected=True, takes_q=False, split_columns="1", trees_per_step="1",
                description="one single-output tree per step on a random projection of the residuals, "
                            "weighted per output",
                cost_columns=(1, 0, 0.25), colour="#2ca02c", colour_scheme="subsample",
                newton_refusal="gives every leaf one value per output, which is gbrt-relabel-rpo: use "
                               "strategy='projected_relabel' (with n_projections=1 for Algorithm 3's single "
                               "projection) instead of 'projected'"),
    BoostingRow("projected_relabel", "gbrt-relabel-rpo", "paper 002, Algorithm 4", "PROJECTED_RELABEL",
                projected=True, takes_q=True, split_columns="q", trees_per_step="1",
                description="one tree per step on q random projections of the residuals, its leaves refilled "
                            "with the mean unprojected residuals",
                cost_columns=(0, 1, 0.5), relabels="projected"),
)}

FORESTS = {row.kind: row for row in (
    ForestRow("mo-rf", "paper 002's baseline", projected=False, takes_q=False, split_columns="d",
              trees_per_tree="1", description="a random forest of multi-output trees on the original outputs",
              config=dict(projection=None)),
    ForestRow("st-rf", "paper 002's baseline", projected=False, takes_q=False, split_columns="1",
              trees_per_tree="d", description="one random forest per output"),
    ForestRow("mo-et", "extra trees (Geurts et al. 2006)", projected=False, takes_q=False, split_columns="d",
              trees_per_tree="1", description="extra trees (random thresholds) on the original outputs",
              config=dict(projection=None, splitter="random", bootstrap=False)),
    # q defaults to "log" = max(1, round(ln d)), the size of paper 003's 24-data-set comparison (Table 1).
    ForestRow("shared", "paper 003, Algorithm 1", projected=True, takes_q=True, split_columns="q",
              trees_per_tree="1", description="one projection for all trees",
              config=dict(n_components="log", projection_per_tree=False)),
    ForestRow("per-tree", "paper 003, Algorithm 2", projected=True, takes_q=True, split_columns="q",
              trees_per_tree="1", description="a new projection for every tree",
              config=dict(n_components="log", projection_per_tree=True)),
)}

SCHEMES = {row.scheme: row for row in (
    SchemeRow("subsample", "subsampled", "output sub-sampling", "output sub-sampling", "q random outputs",
              draw_subsample, dense=False, step_cost=0.0, tree_reads="1", q_at_most_d=True),
    SchemeRow("gaussian", "gaussian", "Gaussian", "Gaussian", "N(0, 1/q)", draw_gaussian, dense=True,
              step_cost=4e-10),
    SchemeRow("achlioptas", "achlioptas", "Rademacher (s = 3)", "Achlioptas (sparse ±1, s = 3)",
              "Rademacher with s = 3", draw_achlioptas, dense=True, step_cost=1.5e-10),
    SchemeRow("sparse", "sparse", "sparse Rademacher (s = √d)", "sparse ±1 (s = √d)", "Rademacher with s = √d",
              draw_sparse, dense=False, step_cost=4e-11),
)}

_TABLES = {BoostingRow: (BOOSTING, "strategy"), ForestRow: (FORESTS, "kind"), SchemeRow: (SCHEMES, "scheme")}


def register(row):
    """Add a row to its table (a new strategy, forest kind or scheme). Register before the layers
    above are imported: they read the table once, when they load."""
    table, key = _TABLES[type(row)]
    for size in (getattr(row, "split_columns", "1"), getattr(row, "trees_per_step", getattr(row, "trees_per_tree", "1"))):
        if size not in SIZES:
            raise ValueError(f"a size must be one of {SIZES}, got {size!r}")
    table[getattr(row, key)] = row
    return row


def boosting_name(strategy, projection=None):
    """The paper's name of a boosting method, e.g. ("projected", "gaussian") -> "gbrt-rpo-gaussian"."""
    if not isinstance(strategy, str) or strategy not in BOOSTING:
        raise ValueError(f"strategy must be one of {tuple(BOOSTING)}, got {strategy!r}")
    row = BOOSTING[strategy]
    if not row.projected:
        return row.name
    if not isinstance(projection, str) or projection not in SCHEMES:
        raise ValueError(f"projection must be one of {tuple(SCHEMES)} for {row.name}, got {projection!r}")
    return f"{row.name}-{SCHEMES[projection].suffix}"


def forest_name(projection, per_tree):
    """The name of a forest on projected outputs (paper 003): Algorithm 2 per tree, 1 shared."""
    return f"rf-{SCHEMES[projection].suffix}-{'per-tree' if per_tree else 'shared'}"


def boosting_names():
    """Every boosting method's name: the unprojected strategies, then each scheme's projected ones."""
    plain = [boosting_name(s) for s, row in BOOSTING.items() if not row.projected]
    return tuple(plain + [boosting_name(s, scheme) for scheme in SCHEMES
                          for s, row in BOOSTING.items() if row.projected])


def forest_names():
    """Every forest's name: the unprojected kinds, then each scheme's projected ones."""
    plain = [kind for kind, row in FORESTS.items() if not row.projected]
    return tuple(plain + [f"rf-{SCHEMES[scheme].suffix}-{kind}" for scheme in SCHEMES
                          for kind, row in FORESTS.items() if row.projected])


def method_of(name):
    """(row, scheme or None) of a method's name: a boosting name, a forest name, or a boosting
    strategy's bare paper name ("gbrt-rpo"); None when no row makes it."""
    for row in sorted(BOOSTING.values(), key=lambda r: len(r.name), reverse=True):
        if name == row.name:
            return row, None
        if row.projected and name.startswith(row.name + "-"):
            scheme = _scheme_of_suffix(name[len(row.name) + 1:])
            if scheme is not None:
                return row, scheme
    if name in FORESTS and not FORESTS[name].projected:
        return FORESTS[name], None
    for kind, row in FORESTS.items():
        if row.projected and name.startswith("rf-") and name.endswith("-" + kind):
            scheme = _scheme_of_suffix(name[3:-len(kind) - 1])
            if scheme is not None:
                return row, scheme
    return None


def _scheme_of_suffix(suffix):
    return next((s for s, row in SCHEMES.items() if suffix in (row.suffix, s)), None)


def method_colours():
    """{method name: colour} of the methods that own a colour on every chart."""
    out = {}
    for strategy, row in BOOSTING.items():
        if row.colour is not None:
            out[boosting_name(strategy, row.colour_scheme) if row.projected else row.name] = row.colour
    out.update({kind: row.colour for kind, row in FORESTS.items() if row.colour and not row.projected})
    return out


def scheme_help(sep=", ", eq=" = "):
    """How every scheme draws its entries, for a widget's help: "subsample = q random outputs, ..."."""
    return sep.join(f"{scheme}{eq}{row.entries}" for scheme, row in SCHEMES.items())
