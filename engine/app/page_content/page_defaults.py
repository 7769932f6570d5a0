"""The problems the cost pages open on, in one place (the pages and ``python -m engine.bench --pages`` read them).

Projections' q sweep and Forests' projection size are about cost: a tree on q projections is
cheaper than one on all d outputs. At d = 16 and n = 300 a step costs microseconds and the
effect the papers describe does not exist (issue 21: q = 1 drawn slower than gbmort), so both
pages open on a wide-output real data set where the models learn and the saving is well above
the noise, and still finish in seconds:

* Projections: bibtex (4880 training documents, 1836 sparse inputs, 159 labels), 50 stumps,
  the square loss (the logistic loss's per-label line searches cost as much for every q and hide
  the saving). Measured at load ~9 on 2 cores: q = 1 fits 50 steps in 0.39 s against 2.69 s for
  gbmort (ratio 0.15); the LRAP rises from 0.14 to about 0.35.
* Forests: corel5k (4500 training images, 499 inputs, 374 labels), 10 trees, q = 1, 4, 16, no
  single trees (one unpruned tree on every feature costs as much as several forests). Measured:
  a forest on q = 1 projections in 1.40 s against 5.07 s unprojected (ratio 0.28).
"""

PROJECTIONS_DATASET = "bibtex"
PROJECTIONS_STEPS = 50
PROJECTIONS_LOSS = "squared_error"   # multi-label default of the page (logistic stays one click away)

FORESTS_DATASET = "corel5k"
FORESTS_Q = "1, 4, 16"
FORESTS_TREES = 10

# Below this many outputs a page says the cost effect needs many outputs.
FEW_OUTPUTS = 64
