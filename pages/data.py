"""Data: choose the data set the other pages use, and look at its outputs.

Three sources: the paper's synthetic friedman1 chain / group / ind problems, a shipped
benchmark data set, or the user's own CSV. Every setting is in the URL (widget key = query
parameter name), so a view can be shared as a link, e.g. ``/data?data_problem=group&data_seed=3``
(every key starts with ``data_``: a page's keys are its own, so no setting leaks to another page).

For the other pages this page leaves two plain session_state keys (see engine/app/page_models/dataspec.py):
``dataset_spec`` (a small dict of plain values, turned back into a Dataset by
``engine.app.page_models.dataspec.dataset_from_spec``) and, after an upload, ``dataset_upload`` (the parsed
arrays). They change only when a data set loads without error. The choice is also named in every
page's URL (``data=...``, pages/_data_choice.py), so a reload finds it; an upload is kept on the
server by its content hash (pages/_upload.py), so a reload finds the file too.
"""

import secrets

import streamlit as st

from engine import plotting
from engine.app.page_models import dataspec
from engine.datasets import upload as engine_upload
from engine.datasets import list_datasets
from engine.app.page_content.parameters.data import DEFAULT_SHIPPED
from pages._deeplink import route_through_app
from pages._compare import reset_button
from pages._data_choice import SPEC_KEY, URL_KEY, name_in_url
from pages._upload import upload_choice
from pages._parameters import parameter_button, parameter_widget
from pages._render import show_chart

route_through_app(__file__)


st.session_state.setdefault(SPEC_KEY, dict(dataspec.DEFAULT_SPEC))
load_spec = st.cache_data(dataspec.dataset_from_spec, show_spinner="Loading the data set…")


@st.cache_data
def shipped_catalogue():
    return {d["name"]: d for d in list_datasets()}


def new_seed():
    st.session_state["data_seed"] = secrets.randbelow(100_000)


st.title("Data")
st.markdown(
    "Pick the data set the other pages train on, then look at **how its outputs relate**: "
    "that structure decides whether sharing trees between outputs can help."
)

# --- controls ----------------------------------------------------------------------------------
catalogue = shipped_catalogue()
# The widgets open on the data the app uses now (restored from the URL after a reload, or chosen here
# before): a page never shows one data set while the others use another.
current = st.session_state[SPEC_KEY]
now = current if current.get("source") == "friedman" else dataspec.DEFAULT_SPEC
with st.sidebar:
    st.header("Data set")
    # The page's settings are the app's chosen data: Reset chooses the default data again (the
    # widgets' defaults follow the chosen data, so the choice itself and its `data=` go too).
    reset_button("data", extra=(SPEC_KEY, URL_KEY))
    source = parameter_widget("data_source", default=current.get("source", "friedman"))

    if source == "friedman":
        structure = parameter_widget("data_problem", default=now["structure"])
        n_outputs = parameter_widget("data_n_outputs", default=now["n_outputs"])
        n_samples = parameter_widget("data_n_samples", default=now["n_samples"])
        inputs = parameter_widget("data_inputs", default=now["input_distribution"])
        st.caption(
            "The paper's text says x ~ N(0, I), but the scores it reports only fit uniform inputs, "
            "hence the uniform default."
        )
        noise = parameter_widget("data_noise", default=float(now["noise"]))
        n_noisy = parameter_widget("data_noisy_outputs", default=now["n_noisy_outputs"])
        c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
        seed = parameter_widget("data_seed", where=c1, default=now["seed"])
        parameter_button("data_new_seed", where=c2, on_click=new_seed)
        spec = dataspec.friedman_spec(
            structure, n_samples=n_samples, n_outputs=n_outputs, input_distribution=inputs,
            noise=noise, n_noisy_outputs=n_noisy, seed=seed,
        )  # fmt: skip

    elif source == "shipped":
        names = list(catalogue)
        default = current["name"] if current.get("source") == "shipped" and current["name"] in names else DEFAULT_SHIPPED
        name = parameter_widget("data_dataset", options=names, default=default)
        info = catalogue[name]
        sparse_note = f" · sparse inputs ({info['nnz']:,} non-zeros)" if info.get("sparse") else ""
        st.caption(f"{info['task']} · {info['n_samples']:,} samples · {info['n_features']:,} inputs · "
                   f"{info['n_outputs']} outputs{sparse_note}")  # fmt: skip
        spec = dataspec.shipped_spec(name)

    else:
        spec = None
        uploaded = st.file_uploader(
            "CSV file", type=["csv", "txt", "gz"], key="data_file", max_upload_size=20,
            help=f"A header row, then numbers only; a gzip-compressed file is fine. Limits: 20 MB, "
            f"{engine_upload.DEFAULT_MAX_ROWS:,} rows, {engine_upload.DEFAULT_MAX_COLUMNS:,} columns. "
            "The file is kept in this server's memory (never on disk) while a session uses it, so a reload "
            "of the tab finds it again.",
        )  # fmt: skip

# --- load ------------------------------------------------------------------------------------
ds, problem = None, None
if source == "upload":
    ds, spec = upload_choice(uploaded, current)
else:
    try:
        ds = load_spec(spec)
    except ValueError as exc:
        problem = str(exc)
        st.error(f"This data set could not be loaded: {problem}", icon="⚠️")

if ds is not None and spec is not None:
    st.session_state[SPEC_KEY] = spec
    name_in_url()

if ds is None:
    st.caption(f"The other pages keep using: {dataspec.describe_spec(st.session_state[SPEC_KEY])}.")
    st.stop()

# --- summary -------------------------------------------------------------------------------
st.subheader(ds.name)
m = st.columns(4)
m[0].metric("Samples", f"{ds.n_samples:,}", help="Rows (n).")
m[1].metric("Inputs", f"{ds.n_features:,}", help="Feature columns (p).")
m[2].metric("Outputs", f"{ds.n_outputs:,}", help="Target columns (d): the outputs predicted together.")
m[3].metric("Task", ds.task, help="multilabel: every target is 0/1 (a label); regression otherwise.")
st.caption(ds.description)
if ds.is_sparse:
    st.caption(f"The inputs are sparse: {ds.nnz:,} of {ds.n_samples * ds.n_features:,} values are non-zero "
               f"({ds.nnz / (ds.n_samples * ds.n_features):.1%}). They stay a sparse (CSR) matrix in memory, "
               "and the download below is an NPZ file that keeps them sparse.")  # fmt: skip
if ds.citation:
    with st.expander("Source and citation"):
        st.text(ds.citation)
st.caption(f"Used by the other pages: {dataspec.describe_spec(st.session_state[SPEC_KEY])}.")

# --- charts, each with its explanation beside it -------------------------------------------------
chart_config = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}

corr_fig = plotting.data_correlation_figure(ds.Y, ds.target_names)
left, right = st.columns([3, 1])
show_chart(left, corr_fig, key="data_corr", config=chart_config)
mean_abs = corr_fig.layout.meta["mean_abs_corr"]
with right:
    st.markdown("**What to look for**")
    if source == "friedman" and spec["structure"] == "chain":
        st.markdown("A band that fades away from the diagonal: neighbouring outputs share most of their noise, distant ones less.")
        d = spec["n_outputs"]
        if d > 1:
            z = corr_fig.data[0].z
            st.markdown(f"Here corr(y1, y2) = **{z[0][1]:.2f}** but corr(y1, y{d}) = **{z[0][d - 1]:.2f}**.")
    elif source == "friedman" and spec["structure"] == "group":
        st.markdown("One uniform block: every pair of outputs is equally correlated, because they share the same signal.")
    elif source == "friedman":
        st.markdown("Only the diagonal: independent outputs, so sharing trees between them cannot help.")
    else:
        st.markdown("Blocks of strongly correlated outputs suggest that one tree can serve several outputs at once.")
    st.markdown(f"Mean |correlation| between different outputs here: **{mean_abs:.2f}**." if ds.n_outputs > 1 else "")
    if source == "friedman" and spec["n_noisy_outputs"]:
        st.markdown("The noisy outputs (last rows) are shuffled copies: they correlate with nothing.")

left, right = st.columns([3, 1])
if ds.bayes is not None:
    outputs = plotting.default_bayes_outputs(spec["n_outputs"], spec["n_noisy_outputs"])
    fig = plotting.outputs_vs_bayes_figure(ds.Y, ds.bayes, ds.target_names, outputs, seed=int(spec["seed"]))
    show_chart(left, fig, key="data_bayes", config=chart_config)
    sds = fig.layout.meta["noise_sd"]
    with right:
        st.markdown("**What to look for**")
        st.markdown(
            "Each point is a sample: its output against the best possible prediction E[y | x]. "
            "The spread around the dashed line is noise that no model can remove."
        )
        if spec["structure"] == "chain" and len(sds) > 1:
            st.markdown(f"In chain the noise grows along the outputs: sd {sds[0]:.1f} for the first, {sds[len(outputs) - 1 - bool(spec['n_noisy_outputs'])]:.1f} for the last.")
        if spec["n_noisy_outputs"]:
            st.markdown("A noisy output has a constant best prediction: a vertical stripe.")
else:
    fig = plotting.target_distribution_figure(ds.Y, ds.target_names, ds.task)
    show_chart(left, fig, key="data_targets", config=chart_config)
    with right:
        st.markdown("**What to look for**")
        if ds.task == "multilabel":
            st.markdown("How often each label is positive. Rare labels give few examples to learn from, and their scores are noisy.")
        else:
            st.markdown("The range and shape of each target. Targets on very different scales weigh differently in a summed squared error.")

# --- download --------------------------------------------------------------------------------
frame = ds.to_frame
second_name = "bayes" if ds.bayes is not None else "targets"
d = st.columns(4)
if ds.is_sparse:
    # A CSV would spell out every zero (bibtex: 14.7 million cells); the NPZ keeps X sparse.
    d[0].download_button(
        "Data (NPZ, sparse)", data=ds.to_npz, file_name=f"{ds.name}.npz",
        mime="application/octet-stream", on_click="ignore", key="data_download", icon="⬇️",
        help="numpy NPZ: X in CSR form (X_data, X_indices, X_indptr, X_shape), Y, feature_names, "
        "target_names, as in sample_data/; read it with numpy.load(..., allow_pickle=False).",
    )  # fmt: skip
else:
    d[0].download_button(
        "Data as used (CSV)", data=lambda: frame().to_csv(index=False), file_name=f"{ds.name}_as_used.csv",
        mime="text/csv", on_click="ignore", key="data_download", icon="⬇️",
        help="The data as the pages train on it, not the original file: the feature columns, then the "
        "target columns (each in the file's order), missing feature values replaced by the feature's median. "
        "It can be uploaded again (targets: the last columns).",
    )  # fmt: skip
d[1].download_button(
    "Correlation matrix (CSV)", data=lambda: plotting.correlation_frame(ds.Y, ds.target_names).to_csv(),
    file_name=f"{ds.name}_correlation.csv", mime="text/csv", on_click="ignore", key="data_dl_corr_csv",
    icon="⬇️", help="The output correlation matrix of the heatmap; blank cells are constant outputs.",
)  # fmt: skip
d[2].download_button(
    "Heatmap (HTML)", data=lambda: plotting.standalone_html(corr_fig), file_name=f"{ds.name}_correlation.html",
    mime="text/html", on_click="ignore", key="data_dl_corr_html", icon="⬇️",
    help="The correlation heatmap as a standalone interactive HTML file (works offline).",
)  # fmt: skip
d[3].download_button(
    f"{'Scatter' if ds.bayes is not None else 'Targets'} (HTML)", data=lambda: plotting.standalone_html(fig),
    file_name=f"{ds.name}_{second_name}.html", mime="text/html", on_click="ignore", key="data_dl_second_html",
    icon="⬇️", help="The second chart as a standalone interactive HTML file (works offline).",
)  # fmt: skip
