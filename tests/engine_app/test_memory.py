"""engine.app.serving.memory: memory freed in a thread's heap goes back to the system.

The server's sessions allocate from their own threads' heaps. With glibc's dynamic thresholds
(raised for good by the first large buffer freed), 24 MB freed in a thread stay resident even
after ``release_memory()`` (gc + ``malloc_trim(0)``, which never trims a thread heap's top);
with :func:`set_malloc_thresholds` they go back. Each case runs in a fresh interpreter, so the
thresholds of this test process are left alone and the control starts from glibc's defaults.
"""

import subprocess
import sys

import pytest

from engine.app.serving.memory import set_malloc_thresholds

# What glibc holds from the system (every arena's heaps plus its mapped blocks: mallinfo2's arena + hblkhd),
# not the resident set: the kernel may reclaim cold pages of a freed but kept heap (this machine runs
# DAMON's reclaim), which made the dynamic control's resident memory drop under a loaded suite.
FREED_IN_A_THREAD = """
import ctypes, sys, threading
from engine.app.serving.memory import release_memory, set_malloc_thresholds

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                     "fsmblks", "uordblks", "fordblks", "keepcost")]

_mallinfo2 = ctypes.CDLL("libc.so.6").mallinfo2
_mallinfo2.restype = MallInfo2

def held_mb():
    info = _mallinfo2()
    return (info.arena + info.hblkhd) / 2**20

if sys.argv[1] == "fixed":
    assert set_malloc_thresholds()
size = int(sys.argv[2])
big = bytearray(16 << 20)      # one large buffer freed: glibc's dynamic mmap threshold rises to 16 MB
del big
release_memory()
base = held_mb()

def session():                  # a session's thread: 24 MB of blocks, then all freed
    blocks = [b"x" * size for _ in range((24 << 20) // size)]
    del blocks

t = threading.Thread(target=session)
t.start()
t.join()
release_memory()
print(held_mb() - base)
"""


def retained_mb(mode, block_bytes):
    out = subprocess.run([sys.executable, "-c", FREED_IN_A_THREAD, mode, str(block_bytes)], capture_output=True,
                         text=True, timeout=60, check=True)
    return float(out.stdout.strip())


@pytest.mark.slow
@pytest.mark.parametrize("block_bytes", [1 << 20, 100_000, 20_000])
def test_memory_freed_in_a_thread_goes_back_with_fixed_thresholds(block_bytes):
    kept = retained_mb("dynamic", block_bytes)
    assert kept > 15, f"glibc's dynamic thresholds returned the thread's memory ({kept:.1f} MB kept): the control failed"
    assert retained_mb("fixed", block_bytes) < 5


def test_set_malloc_thresholds_refuses_bad_sizes():
    for bad in (0, -1, 2**31, 1.5, True, "256"):
        with pytest.raises(ValueError, match="mmap_bytes"):
            set_malloc_thresholds(mmap_bytes=bad)
        with pytest.raises(ValueError, match="trim_bytes"):
            set_malloc_thresholds(trim_bytes=bad)
