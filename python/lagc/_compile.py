"""lagc.compile: lagc --c-api, then c++ -O2 -shared -fPIC, cached and atomic."""
import hashlib
import os
import re
import shutil
import subprocess
import tempfile

from ._header import Header
from ._shim import SHIM_VERSION, shim_source


class CompileError(Exception):
    """lagc refused the model (its diagnostics, with file:line:col, are the message and
    ``diagnostics``: a list of (file, line, column, severity, text)), or the C++ compiler
    failed on the generated code."""

    def __init__(self, message, diagnostics=(), returncode=None):
        super().__init__(message)
        self.message = message
        self.diagnostics = list(diagnostics)
        self.returncode = returncode


_DIAGNOSTIC = re.compile(r"^(.*?):(\d+):(\d+): (error|warning|note): (.*)$", re.M)


def _parse_diagnostics(text):
    return [(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), m.group(5))
            for m in _DIAGNOSTIC.finditer(text)]


def find_lagc(executable=None):
    """The lagc executable: the argument, $LAGC_EXECUTABLE, the build tree next to this
    package (python/lagc in the source tree with build/lagc, or a copy of the package in
    the build tree), PREFIX/bin/lagc for a package installed in PREFIX/lib/python3/
    dist-packages, or lagc on PATH."""
    if executable:
        return executable
    env = os.environ.get("LAGC_EXECUTABLE")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, "..", "..", "build", "lagc"), os.path.join(here, "..", "..", "lagc")]
    if os.path.basename(os.path.dirname(here)) in ("dist-packages", "site-packages"):
        # installed: PREFIX/lib/python3/dist-packages/lagc, the lagc of the same install
        candidates.append(os.path.join(here, "..", "..", "..", "..", "bin", "lagc"))
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    found = shutil.which("lagc")
    if found:
        return found
    raise FileNotFoundError("lagc: no lagc executable: set LAGC_EXECUTABLE, build lagc in build/, or install it")


def cache_dir():
    """$LAGC_CACHE_DIR, else $XDG_CACHE_HOME/lagc, else ~/.cache/lagc."""
    env = os.environ.get("LAGC_CACHE_DIR")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "lagc")


def _cli_options(options):
    """Keyword options as command-line arguments: fold_parameters=True -> --fold-parameters,
    Werror=True -> -Werror, Wno_coriolis=True -> -Wno-coriolis, w=True -> -w,
    scalar="float" -> --scalar float, regressor_parameters=["a", "b"] -> --regressor-parameters a,b."""
    args = []
    for key in sorted(options):
        value = options[key]
        if key in ("c_api", "template", "o", "output"):
            raise ValueError("lagc.compile: option %r is chosen by the package" % key)
        flag = ("-" if key == "w" or key.startswith("W") else "--") + key.replace("_", "-")  # -w, -Werror
        if value is True:
            args.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, str(value)]
    return args


_versions = {}


def _lagc_version(lagc):
    """lagc's --version and the executable's SHA-256: a rebuilt lagc with the same version
    (a developer's build tree) is a new key, so the cache never serves an older lagc's code."""
    binary = lagc if os.path.exists(lagc) else (shutil.which(lagc) or lagc)
    stat = os.stat(binary) if os.path.exists(binary) else None
    key = (binary, stat.st_mtime_ns if stat else 0, stat.st_size if stat else 0)
    if key not in _versions:
        r = subprocess.run([lagc, "--version"], capture_output=True, text=True)
        if r.returncode != 0:
            raise CompileError("lagc: %s --version failed: %s" % (lagc, r.stderr.strip()), returncode=r.returncode)
        digest = ""
        if stat:
            with open(binary, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
        _versions[key] = r.stdout.strip() + " " + digest
    return _versions[key]


def _cxx():
    return os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or "c++"


def _build_library(directory, cpp, header_name, cxx, cxxflags):
    header = Header(open(os.path.join(directory, header_name)).read())
    with open(os.path.join(directory, "batch_shim.cpp"), "w") as f:
        f.write(shim_source(header, header_name))
    library = os.path.join(directory, "libmodel.so")
    command = [cxx, "-std=c++17", "-O2", "-shared", "-fPIC", *cxxflags, cpp, "batch_shim.cpp", "-o", library, "-pthread"]
    r = subprocess.run(command, cwd=directory, capture_output=True, text=True)
    if r.returncode != 0:
        raise CompileError("lagc: the C++ compiler failed on the generated code (%s):\n%s"
                           % (" ".join(command), r.stderr), returncode=r.returncode)
    return library


def compile(path, lagc=None, cache=None, cxx=None, cxxflags=(), **options):
    """Compiles a model (.lag, .urdf, MJCF .xml) into a loaded Model.

    ``options`` are lagc's command-line options (``scalar="float"``, ``fold_parameters=True``,
    ``inertial_parameters="linear"``, ``Werror=True``...). The library is cached under
    cache_dir() by the model's text, lagc's --version (and its executable's SHA-256), the
    options, the compiler and flags:
    a second call loads it without running lagc (two processes compiling the same model at
    once are safe: each builds in a temporary directory and renames it into place).
    A path ending in .so or .h loads an already-built set instead (see ``load``).
    Raises CompileError with lagc's diagnostics (file:line:col) when the model has errors."""
    path = os.fspath(path)
    if path.endswith(".h") or path.endswith(".so") or path.endswith(".cpp"):
        return load(path, cache=cache, cxx=cxx, cxxflags=cxxflags)
    lagc = find_lagc(lagc)
    with open(path, "rb") as f:
        text = f.read()
    cli = _cli_options(options)
    cxx = cxx or _cxx()
    key = hashlib.sha256()
    for part in (text, os.path.basename(path).encode(), _lagc_version(lagc).encode(), "\0".join(cli).encode(),
                 cxx.encode(), "\0".join(cxxflags).encode(), SHIM_VERSION.encode()):
        key.update(part)
        key.update(b"\0")
    digest = key.hexdigest()[:32]
    root = cache or cache_dir()
    final = os.path.join(root, digest)
    from ._model import Model
    if not os.path.exists(os.path.join(final, "libmodel.so")):
        os.makedirs(root, exist_ok=True)
        work = tempfile.mkdtemp(prefix=digest + ".tmp", dir=root)
        try:
            r = subprocess.run([lagc, path, "-o", os.path.join(work, "model.cpp"), "--c-api", *cli],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise CompileError(r.stderr.strip() or "lagc failed with status %d" % r.returncode,
                                   _parse_diagnostics(r.stderr), r.returncode)
            with open(os.path.join(work, "diagnostics.txt"), "w") as f:
                f.write(r.stderr)
            _build_library(work, "model.cpp", "model.h", cxx, list(cxxflags))
            try:
                os.rename(work, final)  # atomic; fails when another process was first
            except OSError:
                if not os.path.exists(os.path.join(final, "libmodel.so")):
                    raise
        finally:
            shutil.rmtree(work, ignore_errors=True)
    diagnostics = ""
    if os.path.exists(os.path.join(final, "diagnostics.txt")):
        diagnostics = open(os.path.join(final, "diagnostics.txt")).read()
    return Model(os.path.join(final, "libmodel.so"), os.path.join(final, "model.h"), diagnostics=diagnostics)


def load(path, header=None, cache=None, cxx=None, cxxflags=()):
    """Loads an already-generated file set: ``OUT.cpp`` written by ``lagc ... -o OUT.cpp --c-api``
    (with OUT.h and OUT.hpp beside it; built with the batch shim into the cache), or a
    library built with the shim (``libmodel.so`` from the cache) with its header."""
    path = os.path.abspath(os.fspath(path))
    from ._model import Model
    if path.endswith(".so"):
        return Model(path, header or os.path.splitext(path)[0] + ".h")
    stem = os.path.splitext(path)[0]
    cpp, h = stem + ".cpp", header or stem + ".h"
    texts = [open(p, "rb").read() for p in (cpp, h, stem + ".hpp") if os.path.exists(p)]
    cxx = cxx or _cxx()
    key = hashlib.sha256(b"\0".join(texts + [cxx.encode(), "\0".join(cxxflags).encode(), SHIM_VERSION.encode()]))
    root = cache or cache_dir()
    final = os.path.join(root, "files-" + key.hexdigest()[:32])
    name = os.path.basename(stem)
    if not os.path.exists(os.path.join(final, "libmodel.so")):
        os.makedirs(root, exist_ok=True)
        work = tempfile.mkdtemp(prefix=os.path.basename(final) + ".tmp", dir=root)
        try:
            for p in (cpp, h, stem + ".hpp"):
                if os.path.exists(p):
                    shutil.copy(p, work)
            _build_library(work, name + ".cpp", os.path.basename(h), cxx, list(cxxflags))
            shutil.copy(os.path.join(work, os.path.basename(h)), os.path.join(work, "model.h"))
            try:
                os.rename(work, final)
            except OSError:
                if not os.path.exists(os.path.join(final, "libmodel.so")):
                    raise
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return Model(os.path.join(final, "libmodel.so"), os.path.join(final, "model.h"))
