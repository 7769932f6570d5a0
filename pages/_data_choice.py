"""The data set the whole app uses (the Data page's choice): kept in the session, named in the URL.

The choice lives in two plain session_state keys, ``dataset_spec`` (a spec of plain values) and, for
an upload, ``dataset_upload`` (its parsed arrays): see engine/app/page_models/dataspec.py. A reload
of the tab opens a new session that has neither, so every page's URL also names the choice, under
``data`` (:func:`~engine.app.page_models.dataspec.spec_to_token`; absent for the default
friedman1-chain), and :func:`sync_data_choice` (app.py, before any page runs) takes it back from there.

An upload is named by its content hash and read back from the server's upload store
(``pages._session.shared_uploads``), which this session then holds. When the store does not hold the
file (the link came from another server, or the file left after its sessions ended), the spec stays
but no arrays come with it: every page then says ``dataspec.GONE`` and runs nothing.
"""
from __future__ import annotations

import streamlit as st

from engine.app.page_models import dataspec
from engine.app.serving.uploads import GRACE_SECONDS
from engine.datasets import upload as engine_upload
from pages._session import shared_uploads

SPEC_KEY, UPLOAD_KEY, URL_KEY = "dataset_spec", "dataset_upload", "data"


_parse = st.cache_data(dataspec.parse_upload, show_spinner="Reading the uploaded CSV…", max_entries=4)


def parse_upload(raw: bytes, target_columns, *, name: str, targets: str | None, sep: str):
    """The app's cached parse of an upload, with the limits of engine.datasets.upload read at run time
    (stated in one place; part of the cache's key)."""
    return _parse(raw, None if target_columns is None else tuple(target_columns), name=name, targets=targets,
                  sep=sep, max_rows=engine_upload.DEFAULT_MAX_ROWS, max_columns=engine_upload.DEFAULT_MAX_COLUMNS)


def sync_data_choice(session) -> None:
    """Restore the choice a fresh session's URL names, keep this session holding its upload, and put
    the choice in the URL. ``session``: this session's ``pages._session.SessionRuns`` (None: no app)."""
    ss = st.session_state
    if SPEC_KEY not in ss:
        ss[SPEC_KEY] = dict(dataspec.DEFAULT_SPEC)
        token = st.query_params.get(URL_KEY)
        if token:
            try:
                ss[SPEC_KEY] = dataspec.spec_from_token(token)
            except ValueError as exc:
                st.warning(f"{exc}: the pages use the default data, {dataspec.describe_spec(ss[SPEC_KEY])}.", icon="🔗")
    if ss[SPEC_KEY].get("source") == "upload" and session is not None:
        session.touch()
        hold_upload(ss[SPEC_KEY], session.owner)
    name_in_url()


def hold_upload(spec: dict, owner: str) -> None:
    """This session holds the chosen upload; its arrays are parsed again when the session lacks them
    (a reload). The file gone: no arrays, and the pages say so."""
    ss = st.session_state
    item = shared_uploads().get(spec["digest"], owner)
    if item is None:
        ss[UPLOAD_KEY] = None
        return
    payload = ss.get(UPLOAD_KEY)
    if payload is not None and payload.get("digest") == spec["digest"] and spec.get("target_columns"):
        return
    try:
        _, new_spec, payload = parse_upload(item.raw, None, name=item.name, targets=spec["targets"], sep=spec["sep"])
    except ValueError as exc:
        ss[UPLOAD_KEY] = None
        ss[SPEC_KEY] = dict(spec, error=f"{item.name} could not be read again: {exc}")
        return
    ss[SPEC_KEY], ss[UPLOAD_KEY] = new_spec, payload


def name_in_url() -> None:
    """The URL names the current choice (``data=...``), or nothing for the default data."""
    spec = st.session_state.get(SPEC_KEY)
    if spec is None or spec == dataspec.DEFAULT_SPEC:
        if URL_KEY in st.query_params:
            del st.query_params[URL_KEY]
        return
    token = dataspec.spec_to_token({k: v for k, v in spec.items() if k != "error"})
    if st.query_params.get(URL_KEY) != token:
        st.query_params[URL_KEY] = token


def upload_gone() -> bool:
    """True when the chosen data is an upload this server no longer holds."""
    ss = st.session_state
    return ss.get(SPEC_KEY, {}).get("source") == "upload" and ss.get(UPLOAD_KEY) is None


def link_note() -> str:
    """What a link to a page on an upload can do (said beside the data's name)."""
    return (f"This page's address names the upload by its content hash (data=upload_…): a reload or a link opens "
            f"it only on this server, while it keeps the file (as long as a session uses it, and "
            f"{GRACE_SECONDS / 60:.0f} min after the last one ends).")


def chosen_dataset():
    """``(Dataset or None, words)``: the chosen data set and its description, or None and why it
    cannot be loaded (an upload this server no longer holds)."""
    spec = st.session_state.get(SPEC_KEY, dataspec.DEFAULT_SPEC)
    try:
        return _load(spec, st.session_state.get(UPLOAD_KEY)), dataspec.describe_spec(spec)
    except ValueError as exc:
        return None, str(exc)


_load = st.cache_data(dataspec.dataset_from_spec, show_spinner="Loading the data set…", max_entries=2,
                      hash_funcs=dataspec.CACHE_HASH_FUNCS)
