"""Reading the two pickled formats the Keras datasets use, without letting a pickle run code.

Why pickle at all: CIFAR-10's python batches are pickled dicts (there is no pickle-free copy of
*this* file; the binary CIFAR release is another file with other bytes), and Keras' imdb.npz
stores ragged sequences as object arrays, which numpy can only save as a pickle. The loaders only
call this after the file's SHA-256 matched (benchdata.download), so a tampered file never gets
here; this module is the second wall, for a hash pinned by mistake.

An unpickler can only run code through the globals a stream names (os.system, builtins.eval, a
class's __reduce__). These files name exactly three: numpy's array reconstructor, numpy.ndarray
and numpy.dtype; everything else in them (dict, list, int, bytes, str) is built by plain opcodes
without a global. Any other global is refused. The allowed names map straight to the objects, so
unpickling imports nothing (numpy.core vs numpy._core spellings both work, without the warnings
numpy 2 gives on numpy.core imports).
"""

from __future__ import annotations

import io
import pickle
import zipfile
from typing import Any

import numpy as np

# The reconstructor numpy's own pickles name, taken from a pickle reduction (public API) rather
# than from a private module path.
_RECONSTRUCT = np.zeros(0).__reduce__()[0]
_ALLOWED = {
    ("numpy.core.multiarray", "_reconstruct"): _RECONSTRUCT,  # files written by numpy 1.x
    ("numpy._core.multiarray", "_reconstruct"): _RECONSTRUCT,  # files written by numpy 2.x
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): np.dtype,
}


class RefusedPickle(pickle.UnpicklingError):
    pass


class RestrictedUnpickler(pickle.Unpickler):
    """Builds only numpy arrays and plain builtin containers; any other global is refused."""

    def find_class(self, module: str, name: str) -> Any:
        try:
            return _ALLOWED[(module, name)]
        except KeyError:
            raise RefusedPickle(f"refused to load the global {module}.{name}") from None


def restricted_loads(data: bytes, encoding: str = "ASCII") -> Any:
    """Unpickle `data` allowing only numpy array reconstruction.

    encoding='bytes' reads Python 2 pickles (CIFAR-10's) with their str values as bytes.
    """
    return RestrictedUnpickler(io.BytesIO(data), encoding=encoding).load()


def load_npz(data: bytes) -> dict[str, np.ndarray]:
    """Every array of an .npz archive. Numeric arrays load with pickling disabled; object arrays
    (ragged sequences) through RestrictedUnpickler. A drop-in for np.load(allow_pickle=True)."""
    arrays = {}
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for member in archive.namelist():
            if not member.endswith(".npy"):
                continue
            arrays[member.removesuffix(".npy")] = _load_npy(archive.read(member))
    return arrays


def _load_npy(raw: bytes) -> np.ndarray:
    fp = io.BytesIO(raw)
    version = np.lib.format.read_magic(fp)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(fp)
    elif version in ((2, 0), (3, 0)):
        # 3.0 differs from 2.0 only in the header's text encoding (utf-8 vs latin-1); the
        # 2.0 reader parses the ASCII headers numpy writes for either.
        shape, _, dtype = np.lib.format.read_array_header_2_0(fp)
    else:
        raise ValueError(f"unsupported .npy format version {version}")
    if not dtype.hasobject:
        return np.lib.format.read_array(io.BytesIO(raw), allow_pickle=False)
    # What follows the header of an object array is one pickle of the whole array.
    array = RestrictedUnpickler(fp).load()
    if not isinstance(array, np.ndarray) or array.shape != tuple(shape):
        raise ValueError(f"object array does not match its header (shape {shape})")
    return array
