"""Page state that cannot leak, and URL values that are never replaced without a word (issue 31).

* A tour of every page in one session, changing widgets on the way, against each page opened alone in
  a fresh session: the widget values must be equal (before the prefixes, Projections opened at
  Convergence's 1000 steps and Bias–variance at its 1000 test samples).
* Every widget key and session value of a page carries the page's prefix.
* A bad URL value (out of range, not an option, not a number, unreadable text) is said on the page:
  a warning naming the parameter, the value the link gave and the value used (pages/_url.py).

Pages start their small default runs by themselves; each test stops them at once (the widgets are
what is compared, not the results), so no test here waits for a fit.
"""

from __future__ import annotations

import pytest

from apptest_runs import app_test

# In sidebar order, with the prefix of every key the page owns.
PAGES = {"pages/home.py": "home_", "pages/data.py": "data_", "pages/convergence.py": "conv_",
         "pages/one_step.py": "os_", "pages/forests.py": "fx_", "pages/bias_variance.py": "bv_",
         "pages/projections.py": "proj_", "pages/benchmark.py": "bench_"}
# Session values shared on purpose: app.py's page list, the Data page's hand-off to the other pages.
# app_visit, app_params_read, app_param_notes, app_params_shown: app.py's bookkeeping of the page visit,
# of the link's parameters it read and of the values this run drew (pages/_url.py, pages/_params.py,
# pages/_parameters.py; the last two are emptied at every run)
SHARED = {"app_registered_pages", "dataset_spec", "dataset_upload", "app_visit", "app_params_read", "app_param_notes",
          "app_params_shown"}
# app.py's frame widgets, on every page by design (a projector view stays on from page to page).
APP_FRAME = {"projector", "projector_url", "predict", "predict_url"}   # predict_url: its URL bookkeeping (pages/_url.py)
KINDS = ("slider", "select_slider", "selectbox", "multiselect", "radio", "number_input", "text_input",
         "checkbox", "toggle")
# The tour's moves (kind, key, value): each would show on a later page if a key were shared.
CHANGES = {
    "pages/data.py": [("radio", "data_problem", "ind"), ("slider", "data_n_outputs", 5), ("slider", "data_noise", 2.0),
                      ("number_input", "data_seed", 3)],
    "pages/convergence.py": [("select_slider", "conv_n_steps", 20), ("select_slider", "conv_n_test", 2000),
                             ("slider", "conv_learning_rate", 0.5), ("slider", "conv_max_leaf_nodes", 4),
                             ("number_input", "conv_seed", 7), ("radio", "conv_problem", "chain"),
                             ("selectbox", "conv_loss", "absolute_error")],
    "pages/one_step.py": [("slider", "os_learning_rate", 0.5), ("number_input", "os_step", 2)],
    "pages/forests.py": [("slider", "fx_trees", 5), ("number_input", "fx_seed", 4)],
    "pages/bias_variance.py": [("slider", "bv_n_sets", 3), ("slider", "bv_n_outputs", 4),
                               ("slider", "bv_n_test", 200), ("number_input", "bv_seed", 9)],
    "pages/projections.py": [("slider", "proj_n_steps", 20), ("selectbox", "proj_dataset", "friedman1-chain")],
}


def stop_runs(at):
    """Stop every background run the session's pages started (the tests compare widgets, not results)."""
    for key in list(at.session_state.keys()):
        entry = at.session_state[key] if key.endswith("_page_run") else None
        if entry is not None and entry.get("job") is not None:
            entry["job"].stop(timeout=30)


def run(at):
    at.run()
    stop_runs(at)
    assert not at.exception, at.exception
    return at


def settings(at):
    """{key: value} of every keyed input widget on the page."""
    return {w.key: w.value for kind in KINDS for w in getattr(at, kind) if w.key is not None and w.key not in APP_FRAME}


def open_alone(page, query=None):
    return run(app_test(query).switch_page(page))


def test_a_tour_of_every_page_leaves_each_page_as_a_fresh_session_opens_it():
    tour = run(app_test())
    seen = {}
    for page, prefix in PAGES.items():
        run(tour.switch_page(page))
        values = settings(tour)
        assert all(k.startswith(prefix) for k in values), (page, sorted(values))
        assert not set(values) & set(seen), (page, set(values) & set(seen))   # no key on two pages
        assert values == settings(open_alone(page)), page
        seen.update(values)
        for kind, key, value in CHANGES.get(page, []):
            getattr(tour, kind)(key=key).set_value(value)
            run(tour)
            assert getattr(tour, kind)(key=key).value == value, (page, key)
    assert len(seen) > 60          # the tour did see the pages' controls
    # Every session value belongs to one page (its prefix) or is a documented hand-off.
    owners = tuple(PAGES.values())
    strays = [k for k in tour.session_state.keys() if not k.startswith(owners) and k not in SHARED | APP_FRAME]
    assert not strays, strays
    # The settings the tour changed stayed on their page: back on Convergence, its own values.
    run(tour.switch_page("pages/convergence.py"))
    assert tour.select_slider(key="conv_n_steps").value == 20 and tour.slider(key="conv_learning_rate").value == 0.5


# (page, URL query, parameter, value given, value the widget then holds, how the note says it)
BAD_URLS = [
    ("pages/convergence.py", {"conv_n_steps": "-5"}, "conv_n_steps", "-5", 10, "uses 10, the nearest allowed value"),
    ("pages/convergence.py", {"conv_problem": "nope"}, "conv_problem", "nope", "group", "uses the default, group"),
    ("pages/convergence.py", {"conv_learning_rate": "abc"}, "conv_learning_rate", "abc", 0.1,
     "not a number: this page uses the default, 0.1"),
    ("pages/one_step.py", {"os_step": "-5"}, "os_step", "-5", 0, "uses 0, the nearest allowed value"),
    ("pages/benchmark.py", {"bench_repeats": "-5"}, "bench_repeats", "-5", 2, "uses 2, the nearest allowed value"),
    ("pages/data.py", {"data_source": "shipped", "data_dataset": "nope"}, "data_dataset", "nope", "enb",
     "uses the default, enb"),
    ("pages/projections.py", {"proj_dataset": "nope"}, "proj_dataset", "nope", "bibtex", "uses the default, bibtex"),
    ("pages/projections.py", {"proj_n_steps": "100000"}, "proj_n_steps", "100000", 2000,
     "outside the range 10 to 2000: this page uses 2000"),
    ("pages/bias_variance.py", {"bv_values": "1,x"}, "bv_values", "1,x", "",
     "cannot read ('x' is not a number): this page uses the default, 1, 3, 10, 30, 100, 300"),
    ("pages/forests.py", {"fx_exp": "nope"}, "fx_exp", "nope", "size", "uses the default, size"),
]


@pytest.mark.parametrize("page, query, key, given, used, said", BAD_URLS, ids=[f"{b[2]}={b[3]}" for b in BAD_URLS])
def test_a_bad_url_value_is_said_with_the_value_used(page, query, key, given, used, said):
    at = open_alone(page, query)
    widget = next(w for kind in KINDS for w in getattr(at, kind) if w.key == key)
    assert widget.value == used
    notes = [w.value for w in at.warning if f"The link asked for {key} = “{given}”" in w.value]
    assert len(notes) == 1 and said in notes[0], [w.value for w in at.warning]
    run(at)                                   # a rerun (any click) keeps the note while the value stays
    assert any(f"{key} = “{given}”" in w.value for w in at.warning)


def test_the_note_goes_when_the_widget_moves_and_good_values_say_nothing():
    at = open_alone("pages/convergence.py", {"conv_n_steps": "-5", "conv_learning_rate": "0.3",
                                             "conv_variants": ["gbmort", "zz"]})
    assert at.slider(key="conv_learning_rate").value == 0.3
    assert at.multiselect(key="conv_variants").value == ["gbmort"]
    notes = [w.value for w in at.warning if w.value.startswith("The link asked for")]
    assert len(notes) == 2 and not any("conv_learning_rate" in n for n in notes)
    assert any("conv_variants = “gbmort, zz”, where “zz” is not among the options" in n for n in notes)
    at.select_slider(key="conv_n_steps").set_value(50)
    run(at)
    assert not any("conv_n_steps" in w.value for w in at.warning)
    assert any("conv_variants" in w.value for w in at.warning)
    # A value equal to the default is a good value too (Streamlit drops it from the URL): no note.
    quiet = open_alone("pages/benchmark.py", {"bench_repeats": "2", "bench_dataset": "friedman1-group"})
    assert not any(w.value.startswith("The link asked for") for w in quiet.warning)


def test_forests_q_beyond_the_outputs_is_clamped_and_said():
    # The link: ?fx_q=100000 on corel5k (374 labels) ran at once; now q is at most d, and said.
    at = open_alone("pages/forests.py", {"fx_q": "100000", "fx_trees": "1"})
    assert any("of q (d = 374 outputs): 100000 → 374" in w.value for w in at.sidebar.warning)
    assert "('q_values', [374])" in at.session_state["fx_page_run"]["settings"][2]


def test_presets_and_challenges_name_only_their_pages_parameters():
    from engine.app.page_content.challenges import CHALLENGES
    from engine.app.page_content.presets import PRESETS

    links = [(p["page"], p["query_params"]) for p in PRESETS] + [(c.page, c.query_params) for c in CHALLENGES]
    for page, query in links:
        assert all(k.startswith(PAGES[page]) or k == "go" for k in query), (page, query)
