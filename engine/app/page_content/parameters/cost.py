"""The Cost page's parameters (pages/cost.py)."""
from engine.app.page_content.parameters.row import rows_of
from engine.experiments.cost_vs_outputs import LIVE_SETTINGS

PAGE = "pages/cost.py"
SHOW = {"here": "measured on this server", "shipped": "the shipped measurement"}   # the URL holds the text

row = rows_of(PAGE, persist=True)
ROWS = (
    row("cost_n", "select_slider", "Samples n (measure here)", options=[250, 500, 1000, 2000],
        default=LIVE_SETTINGS.n_samples,
        help="Training rows of the measurement on this server (the shipped one: 2000)."),
    row("cost_max_d", "select_slider", "Largest d (measure here)", options=[64, 256, 1000],
        default=max(LIVE_SETTINGS.d_values), help="Measure d = 4, 16, 64, ... up to this."),
    row("cost_measure", "button", "Measure on this server",
        help="Time every method at every d on this server, one thread, in the background."),
    # Drawn once a measurement was made here.
    row("cost_show", "radio", "Show", options=list(SHOW), labels=SHOW, horizontal=True,
        help="The measurement made here (sidebar button) or the one shipped with the app."),
)
