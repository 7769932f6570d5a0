"""What each legend entry of a figure means, in words, for a caption under the chart.

A legend says "relabel-rpo, within 0.0723 s" or "pin 1 · gbmort" and leaves the reader to guess.
:func:`legend_caption` lists every entry a figure shows in its legend with its meaning, read from
a glossary of the entries the app's figures draw (the papers' method names, the Projections
sweep's lines, the bias–variance components, the forests' series, pinned runs, ...). A figure can
add or override meanings in ``layout.meta["legend"]`` ({entry: meaning}), or say it explains its
legend itself (``layout.meta["legend_explained"] = True``).
"""
from __future__ import annotations

import re

from engine.methods import BOOSTING, FORESTS, SCHEMES as SCHEME_ROWS, method_of
from engine.names import ARTIFICIAL

__all__ = ["legend_entries", "explain", "legend_caption", "unexplained"]

# What a scheme is, by its name and by its suffix in a method's name (the method table's rows).
SCHEMES = {**{row.suffix: row.description for row in SCHEME_ROWS.values()},
           **{scheme: row.description for scheme, row in SCHEME_ROWS.items()}}

# What a method is, by its paper name: the method table's rows, and the oracle.
METHODS = {**{row.name: row.description for row in BOOSTING.values()},
           ARTIFICIAL: "the oracle that knows the output structure (chain: model y₁ and copy; group: the mean)",
           **{kind: row.description for kind, row in FORESTS.items() if not row.projected}}

# (pattern, meaning): the first that matches explains the entry; {0}, {1}... are its groups.
FIXED = [
    (r"relabel-rpo, after (\d+) steps", "gbrt-relabel-rpo's test score with each q after all {0} steps"),
    (r"relabel-rpo, within (.+?) s", "gbrt-relabel-rpo's best test score within the first {0} s of fitting, for "
                                     "each q: the time budget, the shortest total fit time of all the models, so "
                                     "every q is compared at the same cost"),
    (r"relabel-rpo fit time", "seconds gbrt-relabel-rpo took to fit, for each q"),
    (r"gbmort \(q → ∞\)", "gbmort, the q → ∞ limit: its tree sees every output unprojected"),
    (r"constant model \(step 0\)", "the model every method starts from (each output's training mean): a score "
                                   "near it means little was learned"),
    (r"q ?= ?(\d+)", "the projected model of this chart (see its title) with q = {0} random projections"),
    (r"ours: mean ± std", "our test score over the repeats: mean, and a bar of ± one standard deviation"),
    (r"ours: one repeat", "our test score on one repeat (one random split)"),
    (r"paper \((Table \d+)\)", "the paper's score ({0}) for the same method and data set"),
    (r"expected error", "the expected test error: bias² + variance + noise"),
    (r"bias²", "the squared error of the average model (over learning sets) against the Bayes model"),
    (r"variance", "how much the model changes from one learning set (and seed) to another"),
    (r"learning-set variance(?: Var_L\(E_θ f\))?", "the part of the variance due to drawing another learning set"),
    (r"algorithm variance(?: E_L Var_θ\(f\))?", "the part of the variance due to the algorithm's own randomness (projections, seeds)"),
    (r"noise(?: σ²)?", "the error even the Bayes model makes (the outputs' own noise)"),
    (r"learning set (\d+)", "the model fitted on learning set {0}"),
    (r"one learning set each", "models fitted on different learning sets, one line each"),
    (r"mean over (?:all|\d+) sets", "the average of those models: what the bias is measured on"),
    (r"Bayes (?:model )?E\[y₁ ?\| ?x\]", "the best possible prediction, E[y₁ | x], known for the synthetic problems"),
    (r"one draw", "one random draw (of the projection or the learning set)"),
    (r"mean of the draws", "the average over the draws"),
    (r"single projected tree", "one tree grown on a random projection of the outputs, leaves relabelled"),
    (r"Algorithm 1 \(shared projection\)", "a forest whose trees all use one shared random projection (paper 003)"),
    (r"Algorithm 2 \(projection per tree\)", "a forest drawing a new random projection for every tree (paper 003)"),
    (r"single tree, original outputs", "one tree grown on the original outputs (the reference for a single tree)"),
    (r"mo-rf \(original outputs\)", "the random forest on the original outputs (the reference for a forest)"),
    (r"single tree: projection term", "a single tree's variance due to the random projection"),
    (r"single tree: tree-randomization term", "a single tree's variance due to its own randomization"),
    (r"predicted from the single tree \(Appendix C\.2\)", "the forest's variance predicted from the single tree's "
                                                           "terms (paper 003, Appendix C.2)"),
    (r"ET \(uncompressed\)(?:, test)?", "the extra-trees forest before compression, on the test set"),
    (r"rET \(compressed\)|rET, test set", "the forest after ℓ1 compression, on the test set"),
    (r"rET test nodes", "the test nodes the compressed forest keeps"),
    (r"y = E\[y \| x\]", "where a sample would lie without noise"),
    (r"label frequency", "the share of samples that have each label"),
    (r"(chain|group|ind)", "the friedman1-{0} output structure"),
    (r"train", "on the training set"),
    (r"test", "on the test set"),
    (r"engine: (.+)", "this engine: {0}"),
    (r"XGBoost: (.+)", "XGBoost, {0}, for comparison"),
]
_SCHEME_LABELS = {row.label: row.description for row in SCHEME_ROWS.values()}   # the forests' series


# Trace types plotly leaves out of the legend unless showlegend=True (a heatmap's name is its hover label).
_NO_LEGEND_BY_DEFAULT = {"heatmap", "contour", "histogram2d", "histogram2dcontour", "image", "surface", "table",
                         "indicator", "parcoords", "parcats", "sankey", "treemap", "sunburst", "icicle"}


def legend_entries(fig) -> list[str]:
    """The names a figure shows in its legend, in order, each once (plotly lists every trace that
    shows in the legend, also several of one legend group)."""
    shown = []
    layout_legend = fig.layout.showlegend
    if layout_legend is False:
        return []
    traces = [t for t in fig.data if t.name and (t.showlegend is True or (t.showlegend is None and t.type not in
                                                                          _NO_LEGEND_BY_DEFAULT))]
    if len(traces) == 1 and layout_legend is None and fig.data[0].type not in ("pie",):
        return []                        # plotly hides the legend of a single trace
    for t in traces:
        if t.name not in shown:
            shown.append(t.name)
    return shown


def explain(name: str) -> str | None:
    """The meaning of one legend entry, or None when the glossary does not know it."""
    name = name.strip()
    m = re.fullmatch(r"(.+?) · (.+)", name)
    if m:
        inner = explain(m.group(2))
        return None if inner is None else f"the kept run “{m.group(1)}”: {inner}"
    m = re.fullmatch(r"(.+) \(train\)", name)
    if m and explain(m.group(1)):
        return f"{explain(m.group(1))}, on the training set"
    method = _method(name)
    if method:
        return method
    if name in SCHEMES:
        return f"the same method with {SCHEMES[name]} projections of the outputs"
    m = re.fullmatch(r"(.+?)(?:, | \()q ?= ?(\d+)\)?", name)       # "gbrt-relabel-rpo-gaussian (q = 5)"
    if m and _method(m.group(1)):
        return f"{_method(m.group(1))}; q = {m.group(2)}"
    m = re.fullmatch(r"(.+), M = (\d+)", name)                      # a forest series' variance
    if m and explain(m.group(1)):
        return f"{explain(m.group(1))}: its algorithm variance with {m.group(2)} trees"
    for pattern, meaning in FIXED:
        m = re.fullmatch(pattern, name)
        if m:
            return meaning.format(*m.groups())
    if name in _SCHEME_LABELS:
        return f"a forest on {_SCHEME_LABELS[name]} projections of the outputs"
    m = re.fullmatch(r"(.+) \((.+)\)", name)      # a component of one model: "bias² (gbmort)"
    if m and explain(m.group(1)) and (_method(m.group(2)) or explain(m.group(2))):
        return f"{explain(m.group(1))}, of {m.group(2)}"
    return None


def _method(name):
    """A paper method's name (with its scheme suffix, or a forest name), else None."""
    found = method_of(name)
    if found is None:
        return METHODS.get(name)
    row, scheme = found
    if row.family == "forest" and row.projected:
        return (f"a random forest on {SCHEMES[scheme]} projections of the outputs, {row.description} "
                f"({row.paper.split(',')[0]})")
    if scheme is None:
        return row.description
    return f"{row.description}; projection: {SCHEMES[scheme]}"


def unexplained(fig) -> list[str]:
    """The legend entries of ``fig`` that neither the figure nor the glossary explains."""
    own = dict((fig.layout.meta or {}).get("legend", {})) if isinstance(fig.layout.meta, dict) else {}
    return [n for n in legend_entries(fig) if n not in own and explain(n) is None]


def legend_caption(fig) -> str:
    """"**Legend** · entry: meaning · ..." for every entry of the figure's legend ("" when it has none,
    or when the figure says it explains its legend itself)."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    if meta.get("legend_explained"):
        return ""
    own = dict(meta.get("legend", {}))
    entries = legend_entries(fig)
    parts, kept = [], set()
    for name in entries:
        # A kept run's copy of an entry the current run also shows ("pinned · gbmort") is said once per kept run.
        m = re.fullmatch(r"(.+?) · (.+)", name)
        if m and m.group(2) in entries and name not in own:
            if m.group(1) not in kept:
                kept.add(m.group(1))
                parts.append(f"**{m.group(1)} · …**: the kept run “{m.group(1)}” (dashed), the same entries as the "
                             "current run")
            continue
        meaning = own.get(name) or explain(name)
        parts.append(f"**{name}**: {meaning}" if meaning else f"**{name}**")
    return ("**Legend** · " + " · ".join(parts)) if parts else ""
