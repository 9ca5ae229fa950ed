"""A loaded model: sizes and names from the C header, parameters by name, and every function
of the C interface with numpy in and out, one state or a batch of rows."""
import ctypes
import threading

import numpy as np

from ._header import Header

STATUS = {0: "ok", 1: "singular_mass_matrix", 2: "singular_constraints", 3: "not_finite",
          4: "null_parameters", 5: "not_converged"}
_MEANING = {1: "the mass matrix is not positive definite at this state",
            2: "A M^-1 A^T is singular: the constraints are dependent at this state",
            3: "a result is not finite (NaN or Inf in the state, inputs, parameters or dt, or an overflow)",
            4: "no parameters", 5: "Newton's method did not converge (try a smaller dt)"}


class StatusError(RuntimeError):
    """A single call's function returned a non-zero status (docs/generated-api.md, "Status
    codes"): ``status`` is the code, ``function`` the function's name."""

    def __init__(self, function, status):
        super().__init__("%s returned %d (%s): %s" % (function, status, STATUS.get(status, "?"),
                                                        _MEANING.get(status, "unknown status")))
        self.function, self.status = function, status


class Parameters:
    """The model's parameters, by name: ``p.m2``, ``p["m2"]``, ``dict(p)``, ``p.as_array()``;
    ``p.reset()`` restores the model's defaults. Changing one changes every later call."""

    __slots__ = ("_struct", "_names", "_defaults", "_model_name")

    def __init__(self, struct, names, model_name):
        object.__setattr__(self, "_struct", struct)
        object.__setattr__(self, "_names", tuple(names))
        object.__setattr__(self, "_defaults", {n: getattr(struct, n) for n in names})
        object.__setattr__(self, "_model_name", model_name)

    def _check(self, name):
        if name not in self._names:
            raise AttributeError("model %s has no parameter %r (its parameters: %s)"
                                 % (self._model_name, name, ", ".join(self._names) or "none"))

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        self._check(name)
        return getattr(self._struct, name)

    def __setattr__(self, name, value):
        self._check(name)
        setattr(self._struct, name, float(value))

    def __getitem__(self, name):
        try:
            self._check(name)
        except AttributeError as e:
            raise KeyError(str(e)) from None
        return getattr(self._struct, name)

    def __setitem__(self, name, value):
        try:
            self._check(name)
        except AttributeError as e:
            raise KeyError(str(e)) from None
        setattr(self._struct, name, float(value))

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)

    def __contains__(self, name):
        return name in self._names

    def keys(self):
        return list(self._names)

    def values(self):
        return [getattr(self._struct, n) for n in self._names]

    def items(self):
        return [(n, getattr(self._struct, n)) for n in self._names]

    def as_dict(self):
        return dict(self.items())

    def as_array(self):
        return np.array(self.values(), dtype=np.float64)

    def update(self, values=(), **more):
        """Sets parameters from a dict (or pairs), keywords, or an array in declaration order."""
        if isinstance(values, np.ndarray) or (isinstance(values, (list, tuple)) and values
                                              and not isinstance(values[0], tuple)):
            values = np.asarray(values, dtype=np.float64)
            if values.shape != (len(self._names),):
                raise ValueError("parameters: expected %d values, got shape %s" % (len(self._names), values.shape))
            values = zip(self._names, values)
        elif isinstance(values, dict):
            values = values.items()
        for name, value in list(values) + list(more.items()):
            self[name] = value

    def reset(self):
        self.update(self._defaults)

    @property
    def defaults(self):
        return dict(self._defaults)

    def __repr__(self):
        return "Parameters(%s)" % ", ".join("%s=%r" % kv for kv in self.items())


_LOCKS = {}  # (library handle, function name): the lock of the shim's arrays for single calls
_KINDS = "fiub"  # numpy dtype kinds accepted for a real array
_SLOW = object()  # what the fast single call returns for arguments it leaves to the general path


def _as_real(function, arg, value):
    a = value if type(value) is np.ndarray else np.asarray(value)
    if a.dtype.kind not in _KINDS:
        raise ValueError("%s: %s must be real numbers, got dtype %s" % (function, arg, a.dtype))
    return a


class Function:
    """One function of the model's C interface. Arguments as in docs/generated-api.md minus
    the parameters (the model's ``params``): arrays of one row's shape for a single call,
    or with a leading batch dimension N (arrays of one row's shape are then shared by all
    rows). A single call returns the outputs and raises StatusError for a non-zero status;
    a batch call returns the outputs with a leading N and, for functions that return a
    status, the int32 status of every row last (never raises for a row)."""

    def __init__(self, model, declaration, lib, dtype, ctype):
        self.name = declaration.name
        self._model = model
        self._result = declaration.result
        self._args = declaration.args
        self._dtype, self._ctype = dtype, ctype
        ns = model.name
        single = getattr(lib, "%s_%s" % (ns, self.name))
        single.argtypes = [ctype if a.kind == "scalar" else ctypes.c_void_p for a in self._args]
        single.restype = {"int": ctypes.c_int, "void": None, "double": ctypes.c_double, "float": ctypes.c_float}[self._result]
        self._single = single
        batch = getattr(lib, "lagc_batch_%s" % self.name)
        argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        for a in self._args:
            if a.kind == "params":
                argtypes.append(ctypes.c_void_p)
            elif a.kind == "scalar":
                argtypes.append(ctype)
            else:
                argtypes += [ctypes.c_void_p, ctypes.c_long]
        batch.argtypes, batch.restype = argtypes, ctypes.c_int
        self._batch = batch
        # The Python-side arguments: arrays read (in, inout) and scalars, in C order.
        self._inputs = [a for a in self._args if a.kind in ("in", "inout", "scalar")]
        # What comes back: the arrays written (inout, out) in C order; lambda only with nc > 0.
        self._outputs = [a for a in self._args if a.kind in ("inout", "out")
                         and not (a.name == "lambda" and a.size == 0)]
        # Single calls copy into the shim's arrays for this function (one row each): the C
        # function lagc_fixed_NAME passes them itself, only the parameters' address and the
        # scalars go through ctypes. Models loaded from one library share those arrays (one
        # dlopen), so they share the lock.
        self._lock = _LOCKS.setdefault((lib._handle, self.name), threading.Lock())
        self._buffers = {}
        for a in self._args:
            if a.kind in ("in", "inout", "out") and a.size:
                buf = (ctype * a.size).in_dll(lib, "lagc_f_%s_%s" % (self.name, a.name))
                self._buffers[a.name] = (buf, np.frombuffer(buf, dtype=dtype).reshape(a.shape), ctypes.addressof(buf))
        fixed = getattr(lib, "lagc_fixed_%s" % self.name)
        fixed.argtypes = [ctypes.c_void_p] + [ctype for a in self._args if a.kind == "scalar"]
        fixed.restype = single.restype
        self._fixed = fixed
        # The fast single call: the arguments' list with every fixed address in place, and per
        # Python argument (view or None for a scalar, one row's shape, its place in that list).
        self._template, self._plan = [], []
        places = {}
        for a in self._args:
            places[a.name] = len(self._template)
            if a.kind == "params":
                self._template.append(model._params_address)
            elif a.kind == "scalar" or a.size == 0:
                self._template.append(None)
            else:
                self._template.append(self._buffers[a.name][2])
        for a in self._inputs:
            view = self._buffers[a.name][1] if a.name in self._buffers else None
            self._plan.append((view, a.shape, places[a.name], a.kind == "scalar", a.size == 0))
        self._out_views = [self._buffers[a.name][1] if a.size else np.empty(a.shape, dtype) for a in self._outputs]
        self._returns_value = self._result in ("double", "float")
        self.__doc__ = self.signature()

    def signature(self):
        ins = ", ".join(a.name for a in self._inputs)
        outs = [("%s%s" % (a.name, list(a.shape))) for a in self._outputs]
        if self._result in ("double", "float"):
            outs.append("value")
        return "%s(%s) -> %s; shapes per row: %s" % (
            self.name, ins, ", ".join(outs) or "None",
            ", ".join("%s%s" % (a.name, list(a.shape)) for a in self._inputs if a.kind != "scalar"))

    def __repr__(self):
        return "<lagc function %s.%s>" % (self._model.name, self.signature())

    def _bad_count(self, args):
        return TypeError("%s takes %d arguments (%s), got %d" % (
            self.name, len(self._inputs), ", ".join(a.name for a in self._inputs), len(args)))

    def __call__(self, *args, out=None, threads=1):
        if out is None and len(args) == len(self._plan):
            result = self._fast_single(args)
            if result is not _SLOW:
                return result
        if len(args) != len(self._inputs):
            raise self._bad_count(args)
        values = {}
        batch = None
        for a, v in zip(self._inputs, args):
            if a.kind == "scalar":
                if isinstance(v, np.ndarray) and v.ndim:
                    raise ValueError("%s: %s must be a scalar, got an array of shape %s" % (self.name, a.name, v.shape))
                if isinstance(v, (str, bytes)):
                    raise ValueError("%s: %s must be a real number, got %r" % (self.name, a.name, v))
                try:
                    values[a.name] = float(v)
                except (TypeError, ValueError):
                    raise ValueError("%s: %s must be a real number, got %r" % (self.name, a.name, v)) from None
                continue
            if v is None and a.size == 0:
                values[a.name] = None
                continue
            arr = _as_real(self.name, a.name, v)
            if arr.shape == a.shape:
                values[a.name] = arr
            elif arr.ndim == len(a.shape) + 1 and arr.shape[1:] == a.shape:
                if batch is not None and arr.shape[0] != batch[1]:
                    raise ValueError("%s: %s has %d rows, but %s has %d" % (self.name, a.name, arr.shape[0], batch[0], batch[1]))
                batch = (a.name, arr.shape[0])
                values[a.name] = arr
            else:
                raise ValueError("%s: %s must have shape %s (one row) or (N, %s) (N rows), got %s" % (
                    self.name, a.name, a.shape, ", ".join(str(s) for s in a.shape) or "", arr.shape))
        if batch is None and out is None:
            return self._call_single(values)
        return self._call_batch(values, 1 if batch is None else batch[1], batch is not None, out, threads)

    def _fast_single(self, args):
        """One state, every array already a numpy array of one row's shape: no dicts, no
        allocation but the outputs' copies. Anything else takes the general path (_SLOW)."""
        with self._lock:
            pointers = self._template.copy()
            for (view, shape, place, scalar, empty), v in zip(self._plan, args):
                if scalar:
                    if type(v) is not float and type(v) is not int:
                        return _SLOW
                    pointers[place] = v
                elif type(v) is np.ndarray and v.shape == shape and v.dtype.kind in _KINDS:
                    if view is not None:
                        view[...] = v
                elif v is None and empty:
                    continue
                else:
                    return _SLOW
            r = self._single(*pointers)
            outputs = [view.copy() for view in self._out_views]
        if self._returns_value:
            outputs.append(r)
        elif r and self._result == "int":
            raise StatusError(self.name, r)
        return outputs[0] if len(outputs) == 1 else (tuple(outputs) if outputs else None)

    def _call_single(self, values):
        with self._lock:
            pointers = []
            for a in self._args:
                if a.kind == "params":
                    pointers.append(self._model._params_address)
                elif a.kind == "scalar":
                    pointers.append(values[a.name])
                elif a.size == 0:
                    pointers.append(None)
                else:
                    buf, view, address = self._buffers[a.name]
                    if a.kind != "out":
                        view[...] = values[a.name]
                    pointers.append(address)
            r = self._single(*pointers)
            outputs = [self._buffers[a.name][1].copy() if a.size else np.empty(a.shape, self._dtype)
                       for a in self._outputs]
        if self._result == "int":
            if r != 0:
                raise StatusError(self.name, r)
        elif self._result != "void":
            outputs.append(r)
        return outputs[0] if len(outputs) == 1 else (tuple(outputs) if outputs else None)

    def _call_batch(self, values, n, batched, out, threads):
        if out is not None and not isinstance(out, (tuple, list)):
            out = (out,)
        if out is not None and len(out) != len(self._outputs):
            raise ValueError("%s: out must hold %d arrays (%s), got %d" % (
                self.name, len(self._outputs), ", ".join(a.name for a in self._outputs), len(out)))
        given = dict(zip((a.name for a in self._outputs), out or ()))
        keep = []  # arrays that must live until the call returns
        arguments = []
        results = []
        for a in self._args:
            if a.kind == "params":
                arguments.append(self._model._params_address)
                continue
            if a.kind == "scalar":
                arguments.append(values[a.name])
                continue
            shape = ((n,) if batched else ()) + a.shape
            if a.kind == "in":
                v = values[a.name]
                if v is None or a.size == 0:
                    arguments += [None, 0]
                    continue
                arr = np.ascontiguousarray(v, dtype=self._dtype)
                keep.append(arr)
                arguments += [arr.ctypes.data, a.size if arr.ndim > len(a.shape) else 0]
                continue
            if a.name in given:
                arr = given[a.name]
                if not isinstance(arr, np.ndarray) or arr.shape != shape or arr.dtype != self._dtype \
                        or not arr.flags.c_contiguous or not arr.flags.writeable:
                    raise ValueError("%s: out array for %s must be a writable C-contiguous %s array of shape %s"
                                     % (self.name, a.name, np.dtype(self._dtype).name, shape))
                # No output may overlap an input or another output (generated-api.md, "Aliasing");
                # the state a step updates in place may be its own out= array (x, out=x).
                others = [v for name, v in values.items() if isinstance(v, np.ndarray)
                          and not (name == a.name and a.kind == "inout")] + \
                    [o for name, o in given.items() if name != a.name and isinstance(o, np.ndarray)]
                if any(np.may_share_memory(arr, o) for o in others):
                    raise ValueError("%s: out array for %s overlaps an argument or another output" % (self.name, a.name))
            else:
                # NaN where a failed row writes nothing: the same (not last call's memory) on
                # every call and with any number of threads.
                arr = np.empty(shape, dtype=self._dtype) if a.kind == "inout" else np.full(shape, np.nan, self._dtype)
            if a.kind == "inout":
                arr[...] = values[a.name]
            if a.size == 0:
                arguments += [None, 0]
            else:
                arguments += [arr.ctypes.data, a.size]
            if a in self._outputs:
                results.append(arr)
            else:
                keep.append(arr)
        status = np.zeros(n, dtype=np.int32) if self._result == "int" else None
        ret = np.empty(n, dtype=np.float64) if self._result in ("double", "float") else None
        first = self._batch(n, int(threads), None if status is None else status.ctypes.data,
                            None if ret is None else ret.ctypes.data, *arguments)
        if not batched:  # out= on a single row: the single call's conventions
            if first:
                raise StatusError(self.name, first)
            if ret is not None:
                results.append(float(ret[0]))
            return results[0] if len(results) == 1 else (tuple(results) if results else None)
        if ret is not None:
            results.append(ret)
        if status is not None:
            results.append(status)
        return results[0] if len(results) == 1 else tuple(results)


def _specialised(f):
    """The method a model exposes for Function f: a Python function written for f's own
    arguments, whose single-state path (float64 numpy arrays of one row's shape, Python
    floats) checks and copies each argument in a line of its own into the shim's arrays and
    calls lagc_fixed_NAME, whose only ctypes arguments are the parameters and the scalars
    (cart-pendulum forward_dynamics: 1.06 us a call, against 1.86 us through f itself); any
    other call goes to f, which converts, checks and explains. ``m.NAME.function`` is f
    (its signature, arguments and outputs)."""
    names = ["a%d" % i for i in range(len(f._plan))]
    checks, writes, scalars = [], [], []
    for name, (view, shape, place, scalar, empty) in zip(names, f._plan):
        if scalar:
            checks.append("(type(%s) is float or type(%s) is int)" % (name, name))
            scalars.append(name)
            continue
        array = "(type({0}) is ndarray and {0}.dtype is D and {0}.shape == {1!r})".format(name, shape)
        checks.append("(%s is None or %s)" % (name, array) if empty else array)
        if not empty:
            writes.append("V%d[...] = %s" % (place, name))
    outputs = ["O%d.copy()" % j for j in range(len(f._out_views))]
    if f._returns_value:
        outputs.append("r")
    result = "(%s)" % ", ".join(outputs + [""]) if len(outputs) > 1 else (outputs[0] if outputs else "None")
    lines = ["def %s(%s):" % (f.name, ", ".join(names + ["out=None", "threads=1"])),
             "    if out is None and %s:" % (" and ".join(checks) or "True"),
             "        with lock:"]
    lines += ["            " + w for w in writes]
    lines.append("            r = fixed(%s)" % ", ".join([repr(f._model._params_address)] + scalars))
    if f._result == "int":
        lines.append("            if r: raise StatusError(%r, r)" % f.name)
    lines += ["            return %s" % result,
              "    return general(%s)" % ", ".join(names + ["out=out", "threads=threads"])]
    scope = {"ndarray": np.ndarray, "D": np.dtype(f._dtype), "lock": f._lock, "fixed": f._fixed,
             "general": f.__call__, "StatusError": StatusError}
    for name, (view, shape, place, scalar, empty) in zip(names, f._plan):
        if view is not None:
            scope["V%d" % place] = view
    for j, view in enumerate(f._out_views):
        scope["O%d" % j] = view
    exec(compile("\n".join(lines) + "\n", "<lagc %s.%s>" % (f._model.name, f.name), "exec"), scope)
    method = scope[f.name]
    method.__doc__ = f.__doc__
    method.function = f
    return method


class Model:
    """A compiled model: ``name``, ``nq``, ``nu``, ``nc``, ``nr``, ``coordinate_names``,
    ``input_names``, ``parameter_names``, ``output_names`` (and ``output_sizes``),
    ``regressor_parameter_names``, ``params``, ``dtype``, and one method per function of the
    generated API (``functions`` lists them)."""

    def __init__(self, library, header, diagnostics=""):
        self.library_path, self.header_path, self.diagnostics = library, header, diagnostics
        with open(header) as f:
            h = Header(f.read())
        self._header = h
        self.name, self.nq, self.nu, self.nc, self.nr = h.ns, h.nq, h.nu, h.nc, h.nr
        self.dtype = np.float32 if h.scalar == "float" else np.float64
        ctype = ctypes.c_float if h.scalar == "float" else ctypes.c_double
        self._lib = lib = ctypes.CDLL(library)
        fields = [(n, ctype) for n in h.parameter_names] or [("unused", ctypes.c_char)]
        self._Struct = type("%s_parameters" % h.ns, (ctypes.Structure,), {"_fields_": fields})
        self._params_struct = self._Struct()
        default = getattr(lib, "%s_default_parameters" % h.ns)
        default.argtypes, default.restype = [ctypes.c_void_p], None
        self._params_address = ctypes.addressof(self._params_struct)
        default(self._params_address)
        self.parameter_names = list(h.parameter_names)
        self._params = Parameters(self._params_struct, self.parameter_names, h.ns)

        def names(what, count):
            if not count:
                return []
            return [s.decode() for s in (ctypes.c_char_p * count).in_dll(lib, "%s_%s_names" % (h.ns, what))]
        self.coordinate_names = names("coordinate", h.nq)
        self.input_names = names("input", h.nu)
        self.output_sizes = dict(h.output_sizes)
        self.output_names = names("output", len(h.output_sizes))
        self.regressor_parameter_names = names("regressor_parameter", h.nr)
        self.coordinate_index = {n: i for i, n in enumerate(self.coordinate_names)}
        self.input_index = {n: i for i, n in enumerate(self.input_names)}
        self.functions = []
        for d in h.declarations:
            setattr(self, d.name, _specialised(Function(self, d, lib, self.dtype, ctype)))
            self.functions.append(d.name)

    @property
    def params(self):
        return self._params

    @params.setter
    def params(self, values):
        self._params.update(values)

    def __repr__(self):
        return "<lagc model %s: nq=%d, nu=%d, nc=%d, %d functions>" % (self.name, self.nq, self.nu, self.nc,
                                                                        len(self.functions))
