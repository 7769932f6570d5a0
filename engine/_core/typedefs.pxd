# Type names shared by the compiled modules, named after the numpy dtypes.
# intp_t indexes arrays; the fixed-width types are used for anything stored
# in a fitted model (node fields), so pickles are portable.
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

ctypedef float float32_t
ctypedef double float64_t
ctypedef Py_ssize_t intp_t
