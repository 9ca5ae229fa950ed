"""Reads what a lagc C header (``lagc --c-api``, NAME.h) declares: the sizes, the scalar type,
the parameters struct, the index enums and every function with the size of each array."""
import re


class Argument:
    """One argument of a C function: ``kind`` is 'in' (const array), 'out' (array written),
    'inout' (the state updated in place), 'params' or 'scalar' (t, dt)."""

    def __init__(self, name, kind, size=0, shape=()):
        self.name, self.kind, self.size, self.shape = name, kind, size, shape

    def __repr__(self):
        return "Argument(%r, %r, %d, %r)" % (self.name, self.kind, self.size, self.shape)


class Declaration:
    def __init__(self, name, result, args):
        self.name, self.result, self.args = name, result, args


# Arrays a function updates in place (docs/generated-api.md, "Aliasing").
_IN_PLACE = {"x", "q", "qd"}


class Header:
    def __init__(self, text):
        self.text = text
        sizes = re.search(r"enum \{ (\w+)_nq = (\d+), \w+_nu = (\d+), \w+_nc = (\d+) \}", text)
        if not sizes:
            raise ValueError("not a lagc C header (no NAME_nq enum)")
        self.ns = ns = sizes.group(1)
        self.nq, self.nu, self.nc = (int(sizes.group(i)) for i in (2, 3, 4))
        nr = re.search(r"enum \{ %s_nr = (\d+) \}" % ns, text)
        self.nr = int(nr.group(1)) if nr else 0
        body = re.search(r"typedef struct %s_parameters \{(.*?)\}" % ns, text, re.S).group(1)
        fields = re.findall(r"(double|float) (\w+);", body)
        self.parameter_names = [name for _, name in fields]
        fd = re.search(r"int %s_forward_dynamics\(const (double|float)\*" % ns, text)
        self.scalar = fd.group(1) if fd else (fields[0][0] if fields else "double")
        self.output_sizes = {m.group(1): int(m.group(2))
                             for m in re.finditer(r"%s_output_(\w+)_size = (\d+)" % ns, text)}
        self.declarations = []
        pattern = re.compile(r"/\* ([^*]*?) \*/\n(void|int|double|float) %s_(\w+)\(([^)]*)\);" % ns)
        for m in pattern.finditer(text):
            self.declarations.append(self._declaration(m.group(3), m.group(2), m.group(1), m.group(4)))

    def _declaration(self, name, result, sizes_text, params_text):
        sizes = {}
        if sizes_text != "no arrays":
            for item in sizes_text.split(", "):
                arg, n = re.match(r"(\w+)\[(\d+)\]", item).groups()
                sizes[arg] = int(n)
        args = []
        for p in params_text.split(", "):
            words = p.replace("*", " * ").split()
            arg = words[-1]
            if "parameters" in p:
                args.append(Argument(arg, "params"))
            elif "*" not in words:
                args.append(Argument(arg, "scalar"))
            else:
                size = sizes.get(arg, 0)
                if words[0] == "const":
                    kind = "in"
                elif arg in _IN_PLACE and name != "state_derivative":
                    kind = "inout"
                else:
                    kind = "out"
                args.append(Argument(arg, kind, size, self._shape(name, arg, size)))
        return Declaration(name, result, args)

    def _shape(self, function, arg, size):
        """The shape of one row of an array: matrices as (rows, columns), row-major."""
        nq, nc = self.nq, self.nc
        state_space = function in ("linearization", "zoh_discretization")
        rows = {"M": nq, "C": nq, "K": nq + nc, "Y": nq, "Ad": 2 * nq, "Bd": 2 * nq,
                "A": 2 * nq if state_space else nc, "B": 2 * nq if state_space else nq}.get(arg)
        if arg == "J" and function.startswith("output_") and function.endswith("_jacobian"):
            rows = self.output_sizes.get(function[len("output_"):-len("_jacobian")])
        if rows and size % rows == 0 and (size or arg in ("B", "Bd", "Y")):
            return (rows, size // rows)
        return (size,)
