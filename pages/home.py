"""Home: what the method is, one picture of the three Friedman1 output structures, presets."""

import streamlit as st

from engine import plotting
from engine.app.page_content.presets import PRESETS, TEACHER_LINKS, presets_for
from pages._challenges import challenge_cards
from pages._classroom import teacher_section
from pages._deeplink import registered_pages, route_through_app
from pages._render import show_chart

route_through_app(__file__)

st.title("Multi-output gradient boosting with random output projections")

st.markdown(
    """
Many problems ask for **several outputs at once** (d of them): sixteen related measurements,
hundreds of labels. Gradient boosting can treat them in two extreme ways: one model **per
output** (*single target*, st-gbrt), which ignores any link between outputs, or one
**multi-output tree** per step for all outputs (*gbmort*), which forces every output to share
every split. Each is only right for one kind of output structure.

**gbrt-rpo** (Joly, Wehenkel & Geurts) sits in between. At each boosting step it grows a
*single-output* tree on a **random projection** of the residuals, then fits one weight per
output, so each output takes as much or as little of that tree as helps it. The method thus
adapts to whatever correlation the outputs have, and because trees are shared it often
converges much faster.
"""
)

with st.expander("One boosting step of gbrt-rpo (square loss)", expanded=True):
    st.markdown(
        """
1. Residuals: **G** = Y − F, an n × d matrix (one column per output).
2. Draw a random projection **φ** (1 × d): a random output, or Gaussian / Rademacher weights.
3. Fit a single-output regression tree *g* to the projected residuals **G φᵀ** (one number per sample).
4. Weight the tree for each output j by least squares, then update with learning rate μ:
"""
    )
    st.latex(
        r"\rho_j = \frac{\sum_i G_{ij}\, g(x_i)}{\sum_i g(x_i)^2},"
        r"\qquad F(x) \leftarrow F(x) + \mu\, \rho\, g(x)"
    )
    st.caption(
        "A weight ρⱼ near zero means output j gains nothing from this tree. The relabelled variant "
        "(gbrt-relabel-rpo) instead refills each leaf with the mean unprojected residual vector."
    )

st.header("Three output structures")
left, right = st.columns([3, 2])   # the explanation beside the picture
show_chart(
    left, plotting.output_correlation_figure(n_outputs=16),
    config={"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}},
    key="home_structures",
)
with right:
    st.markdown(
        """
The paper's synthetic problems (section 4.2.1) all build d = 16 outputs from the Friedman1
function f(x) = 10 sin(πx₁x₂) + 20(x₃ − ½)² + 10x₄ + 5x₅ plus unit Gaussian noise:

- **chain**: y₁ = f(x) + ε₁ and each next output adds fresh noise, yⱼ = yⱼ₋₁ + εⱼ; the first output is the cleanest.
- **group**: every output is f(x) + εⱼ; averaging the outputs filters the noise away.
- **ind**: each output is f of its own five inputs; nothing is shared, so single target is best.

**What to look for:** a fading band (chain), one uniform block (group), only the diagonal (ind).
"""
    )
    st.caption(
        "Population correlations computed from these formulas with inputs uniform on [0, 1] "
        "(Var f ≈ 23.8), as in Friedman (1991); the paper's text says Gaussian inputs, but its "
        "scores fit uniform ones. Hover a cell for its value."
    )

st.header("Presets")
st.markdown("Each preset opens a page with the settings of a figure or table from the paper.")
# Presets are defined once in engine/app/page_content/presets.py. A preset becomes a link only when app.py
# registers its target page (st.page_link to an unregistered page is an error); the others
# are listed as "coming soon" so the tour already shows what the app will reproduce.
registered = registered_pages()
available = presets_for(registered)
links = [p for p in PRESETS if p in available]
for preset in links:
    st.page_link(
        preset["page"],
        label=preset["label"],
        icon="▶️",
        help=preset["description"],
        query_params=preset["query_params"],
    )
if len(links) < len(PRESETS):
    st.markdown(
        "\n".join(
            f"- {p['label']} · *coming soon*: {p['description']}" for p in PRESETS if p not in available
        )
    )

teacher_section(TEACHER_LINKS, registered)   # pages/_classroom.py: the teacher's links and the projector view
challenge_cards()   # pages/_challenges.py
