"""The Data page's upload: the file kept on the server, the separator, the targets chosen in one move,
and the split of features and targets shown before anything runs.

The file goes to the server's upload store (``pages._session.shared_uploads``) under its content hash;
the page then reads it from there, so after a reload (a new session, the file uploader empty) the
file the URL names is read again. The target columns are chosen by a rule
(:mod:`engine.datasets.target_columns`: the last k columns, a name prefix, every 0/1 column, or
picked one by one), whose widgets are bound to the URL; the targets keep the file's column order.
"""
from __future__ import annotations

import streamlit as st

from engine.app.page_models import dataspec
from engine.app.serving.uploads import UploadFull
from engine.datasets.target_columns import binary_columns, choose_targets, describe_rule, parse_rule, rule_text
from pages._data_choice import UPLOAD_KEY, link_note, parse_upload
from pages._session import open_session, shared_uploads
from pages._parameters import parameter_widget

FILE_KEY = "data_upload_file"      # (the uploader's file id, its content id): the file put in the store once
binary_of = st.cache_data(binary_columns, show_spinner="Looking for 0/1 columns…", max_entries=4)


def upload_choice(uploaded, current: dict):
    """``(dataset or None, spec or None)`` of the upload (or of the file the session's choice names)."""
    owner = open_session().owner
    uid = _put(uploaded, owner) if uploaded is not None else (
        current.get("digest") if current.get("source") == "upload" else None)
    if uid is None:
        st.info("Upload a CSV file in the sidebar: a header row, feature columns and one or more target columns.")
        return None, None
    item = shared_uploads().get(uid, owner)
    if item is None:
        st.error(f"{dataspec.GONE[0].upper()}{dataspec.GONE[1:]}.", icon="📤")
        return None, None
    if uploaded is None:
        st.info(f"**{item.name}**, kept on this server since it was uploaded. Upload another file to replace it.", icon="📄")
    same = current.get("source") == "upload" and current.get("digest") == uid
    sep, rule = _controls(item, current if same else {})
    if rule is None:
        return None, None
    try:
        columns = dataspec.csv_columns(item.raw, sep=sep)
        targets = choose_targets(columns, rule, binary=binary_of(item.raw, sep) if parse_rule(rule)[0] == "binary" else None)
        show_split(columns, targets, rule)
        ds, spec, payload = parse_upload(item.raw, targets, name=item.name, targets=rule, sep=sep)
    except ValueError as exc:
        hint = dataspec.separator_hint(item.raw, sep, dataspec.SEPARATORS)
        st.error(f"**{item.name}** could not be used: {exc}" + (f" {hint}" if hint else ""), icon="⚠️")
        return None, None
    st.session_state[UPLOAD_KEY] = payload
    st.caption(link_note())
    return ds, spec


def _put(uploaded, owner: str) -> str | None:
    """The uploaded file into the server's store (once per file), its content id."""
    kept = st.session_state.get(FILE_KEY)
    if kept is not None and kept[0] == uploaded.file_id and shared_uploads().get(kept[1], owner) is not None:
        return kept[1]
    try:
        uid = shared_uploads().put(uploaded.getvalue(), uploaded.name, owner)
    except UploadFull as exc:
        st.error(f"**{uploaded.name}** cannot be kept: {exc}.", icon="⚠️")
        return None
    st.session_state[FILE_KEY] = (uploaded.file_id, uid)
    return uid


def _controls(item, same: dict):
    """The separator and the target rule's widgets (sidebar); ``(separator, rule text or None)``.
    ``same``: the session's spec when it is this file's (its separator and rule are the defaults)."""
    names = list(dataspec.SEPARATORS)
    sep_now = next((k for k, v in dataspec.SEPARATORS.items() if v == same.get("sep", ",")), "comma")
    kind_now, value_now = parse_rule(same["targets"]) if same.get("targets") else ("last", 1)
    with st.sidebar:
        sep_name = parameter_widget("data_sep", default=sep_now)
        sep = dataspec.SEPARATORS[sep_name]
        hint = dataspec.separator_hint(item.raw, sep, dataspec.SEPARATORS)
        if hint:
            st.warning(hint, icon="🔣")
        kind = parameter_widget("data_target_rule", default=kind_now)
        if kind == "last":
            k = parameter_widget("data_target_k", default=value_now if kind_now == "last" else 1)
            return sep, rule_text("last", k)
        if kind == "prefix":
            prefix = parameter_widget("data_target_prefix", default=value_now if kind_now == "prefix" else "")
            if not prefix:
                st.info("Type the start of the target columns' names (e.g. tag_ for tag_00 … tag_59).")
                return sep, None
            return sep, rule_text("prefix", prefix)
        if kind == "binary":
            st.caption("Every column whose values are all 0 or 1 (none missing) is a label.")
            return sep, "binary"
        try:
            columns = dataspec.csv_columns(item.raw, sep=sep)
        except ValueError:
            return sep, None
        picked = st.multiselect(
            "Target columns", columns, key=f"data_targets_{item.id}",
            default=[c for c in (value_now if kind_now == "pick" else columns[-1:]) if c in columns],
            help="Not in the link as a widget: its options are this file's columns (the link's data= names them).",
        )  # fmt: skip
        if not picked:
            st.info("Choose at least one target column.")
        return sep, rule_text("pick", picked) if picked else None


def show_split(columns, targets, rule) -> None:
    """The features and the targets, in the file's order, said before anything runs."""
    chosen = set(targets)
    features = [c for c in columns if c not in chosen]
    st.markdown(f"**Targets ({len(targets)})**, {describe_rule(rule)}: {_names(targets)}  \n"
                f"**Features ({len(features)})**: {_names(features)}")


def _names(names, shown=12) -> str:
    if len(names) <= shown:
        return ", ".join(f"`{n}`" for n in names)
    return ", ".join(f"`{n}`" for n in names[: shown - 2]) + f", … , `{names[-1]}`"
