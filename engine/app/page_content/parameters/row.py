"""One row of the parameter table: a URL parameter of a page, and the widget that holds it.

A row says everything the app knows about one parameter: its name (the widget's key and the URL's
parameter), its page, its widget kind (a streamlit widget, named only: engine/ never imports
streamlit), its label and help, its default and its range or options, and how a hidden control is
shown (a teacher's link may hide it: the page then states its value in words). The pages draw the
widget from the row (pages/_parameters.py), the links are built from it
(:func:`engine.app.page_content.parameters.query`), the notes about a link read it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# The widget kinds a row may name (streamlit's functions), and the two that are no widget: "flag", a
# parameter read by the code of every page (``go``, ``hide``, ``challenge``); "button", a control a
# teacher's link may hide but that is not in the URL.
NUMBER_KINDS = ("slider", "number_input")
OPTION_KINDS = ("selectbox", "radio", "select_slider", "multiselect")
WIDGET_KINDS = NUMBER_KINDS + OPTION_KINDS + ("toggle", "checkbox", "text_input")
KINDS = WIDGET_KINDS + ("flag", "button")


@dataclass(frozen=True)
class Parameter:
    """One URL parameter.

    ``key`` is the URL's name and the widget's key (it starts with the page's prefix); ``page`` the page
    file ("pages/convergence.py"), None for a flag every page reads; ``kind`` one of :data:`KINDS`;
    ``default`` the value of a fresh link (None for options the page only knows at run time: a data
    set's list); ``options`` the choices of an option widget (None: the page gives them, they depend on
    the data); ``low``, ``high``, ``step`` a number widget's range; ``labels`` {option: text shown} (the
    URL holds the text shown); ``horizontal``, ``captions``, ``placeholder`` how the widget is drawn;
    ``persist`` whether the widget keeps its value while the page is away (``persist_state="page"``);
    ``hidden`` how a teacher's link that hides the control states its value ("{label}: {value}").
    """

    key: str
    page: str | None
    kind: str
    label: str = ""
    default: object = None
    options: tuple | None = None
    low: float | None = None
    high: float | None = None
    step: float | None = None
    help: str = ""
    labels: dict | None = None
    horizontal: bool = False
    captions: tuple | None = None
    placeholder: str | None = None
    persist: bool = False
    hidden: str = "{label}: {value}"
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind of {self.key} must be one of {KINDS}, got {self.kind!r}")
        for name in ("options", "captions"):        # rows are frozen: a list becomes a tuple
            if isinstance(getattr(self, name), list):
                object.__setattr__(self, name, tuple(getattr(self, name)))
        if isinstance(self.default, list):
            object.__setattr__(self, "default", tuple(self.default))
        if self.default is None and self.options and self.kind in ("selectbox", "radio", "select_slider"):
            object.__setattr__(self, "default", self.options[0])     # streamlit's default: the first option

    @property
    def name(self) -> str:
        """The key without its page's prefix ("conv_n_steps" -> "n_steps"): what a link names."""
        return self.key.split("_", 1)[1] if self.page is not None else self.key

    def shown_hidden(self, value) -> str:
        """The words a page shows for this control when a teacher's link hides it."""
        text = self.labels.get(value, value) if self.labels else value
        if isinstance(text, bool):
            text = "on" if text else "off"
        elif isinstance(text, (list, tuple)):
            text = ", ".join(map(str, text)) or "none"
        return self.hidden.format(label=self.label, value=text)


def rows_of(page: str, *, persist: bool = False):
    """A row maker for one page: ``row(key, kind, label, **fields)`` with the page (and its persistence) set."""
    def row(key: str, kind: str, label: str = "", **fields) -> Parameter:
        return Parameter(key, page, kind, label, **{"persist": persist, **fields})
    return row
