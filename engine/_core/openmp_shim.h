/* omp_get_max_threads() with or without OpenMP (see engine/_build/backend.py). */
#ifndef ENGINE_OPENMP_SHIM_H
#define ENGINE_OPENMP_SHIM_H
#include "openmp_config.h"
#if ENGINE_OPENMP
#  include <omp.h>
static int engine_omp_max_threads(void) { return omp_get_max_threads(); }
#else
static int engine_omp_max_threads(void) { return 1; }
#endif
#endif
