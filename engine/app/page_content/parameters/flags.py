"""The flags every page reads (page None): the sidebar's two switches and the parameters the code reads.

``predict`` and ``projector`` are the sidebar's switches (pages/_predict.py, pages/_classroom.py);
``hide`` a teacher's list of controls to hide (pages/_classroom.py); ``challenge`` the challenge a
page checks (pages/_challenges.py); ``go`` a preset's "run it on this click" (pages/_deeplink.py);
``data`` the Data page's choice carried along (pages/_data_choice.py).
"""
from engine.app.page_content.parameters.row import Parameter

ROWS = (
    Parameter("predict", None, "toggle", "Predict first", default=False,
              help="Before a chart's answer is drawn, the page asks what you expect and compares your answer "
                   "with the result. Off: charts are drawn at once."),
    Parameter("projector", None, "toggle", "Projector view", default=False,
              help="For a class reading a projected screen: larger chart, tree and table text, larger page "
                   "text, and tables that wrap their cells instead of scrolling off the right edge."),
    Parameter("hide", None, "flag", "Hidden controls", default=""),
    Parameter("challenge", None, "flag", "Challenge", default=""),
    Parameter("go", None, "flag", "Run on arrival", default=""),
    Parameter("data", None, "flag", "Data page's choice", default=""),
)
