"""Seeded generator of random valid .lag models: every statement and built-in of the language.

A model is a few independent *blocks* (a cart, a planar chain, a warped point, a 3-D rigid
body, a constrained sub-mechanism), each with its own coordinates, followed by random
*features* (springs, dissipation, forces, torques, lagrangian terms, outputs). Every
coordinate gets a rotor term 1/2 J qd^2 of its own, so M is positive definite whatever the
rest adds; every constraint block ties coordinates of its own, so the rows are independent.

The first lines of a model are `# lagc-random:` comments that tell the runner which
properties hold by construction (energy balance, M = d2T/dqd2) and the values of parameters
declared without a default.
"""
import random

# Smooth functions of one argument, safe on the whole real line (no pole, no kink), used in
# positions: each entry is a format string for the argument.
SMOOTH = [
    "sin({})", "cos({})", "tan(0.5*tanh({}))", "asin(0.5*sin({}))", "acos(0.5*tanh({}))",
    "atan({})", "atan2({}, 2 + cos({}))", "sinh(0.3*{})", "cosh(0.3*{})", "tanh({})",
    "exp(0.3*sin({}))", "log(2 + sin({}))", "sqrt(1 + ({})^2)",
]
# Functions with kinks, used where the runner's checks tolerate them (forces, potentials,
# outputs): a kink is met at random states with probability zero.
KINKED = ["abs({})", "sign({})", "min({}, 0.3)", "max({}, -0.2)"]

BUILTINS = ["sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
            "exp", "log", "sqrt", "abs", "sign", "min", "max", "rot", "rotx", "roty", "rotz",
            "dot", "cross", "norm", "transpose"]


class Model:
    """The statements of a model being built, and what the runner must know about it."""

    def __init__(self, rng, name):
        self.rng = rng
        self.name = name
        self.lines = []           # statements after the declarations, in order
        self.params = []          # "NAME = EXPR" or "NAME"
        self.coords, self.inputs = [], []
        self.points2, self.points3 = [], []   # names of position lets
        self.omegas = []          # names of 3-D angular velocities (body axes)
        self.angles = []          # planar angles (for scalar torques)
        self.use_params = rng.random() < 0.85
        self.energy = True        # E = T + V is the Jacobi energy, no explicit t in it
        self.m_from_t = True      # M = d2T/dqd2: no lagrangian term quadratic in velocities
        self.constraints = 0
        self.unset = {}           # parameters without a default -> value for the checker
        self.count = 0
        self.defaults = {}        # parameter -> its default's value, for derived defaults

    def fresh(self, stem):
        self.count += 1
        return f"{stem}{self.count}"

    def number(self, lo, hi):
        return f"{self.rng.uniform(lo, hi):.3g}"

    def const(self, stem, lo, hi):
        """A positive constant: a parameter (some derived, some without default) or a number."""
        if not self.use_params:
            return self.number(lo, hi)
        name, roll, value = self.fresh(stem), self.rng.random(), float(self.number(lo, hi))
        if roll < 0.15 and self.defaults:
            # Derived from an earlier parameter (as J = m*l^2/12), still in [lo, hi].
            base = self.rng.choice(sorted(self.defaults))
            self.params.append(f"{name} = {value / self.defaults[base]:.4g}*{base}")
        elif roll < 0.25:
            self.params.append(name)
            self.unset[name] = value
        else:
            self.params.append(f"{name} = {value}")
        if name not in self.unset:
            self.defaults[name] = value
        return name

    def coord(self, stem):
        name = self.fresh(stem)
        self.coords.append(name)
        self.lines.append(f"kinetic 0.5*{self.const('J', 0.02, 0.1)}*der({name})^2")
        return name

    def input(self):
        name = self.fresh("u")
        self.inputs.append(name)
        return name

    def let(self, stem, expr):
        name = self.fresh(stem)
        self.lines.append(f"let {name} = {expr}")
        return name

    def smooth(self, arg):
        fmt = self.rng.choice(SMOOTH)
        return fmt.format(*([arg] * fmt.count("{}")))

    def point_mass(self, point, gravity_axis):
        mass = self.const("m", 0.3, 2.0)
        self.lines.append(f"kinetic 0.5*{mass}*dot(der({point}), der({point}))")
        if self.rng.random() < 0.8:
            self.lines.append(f"potential {mass}*{self.const('g', 9.0, 10.0)}*{point}[{gravity_axis}]")


def block_cart(m):
    """A slider along x carrying a 2-D point, sometimes on a frame moving with t."""
    x = m.coord("x")
    if m.rng.random() < 0.2:
        m.energy = False   # T depends on t: not the Jacobi energy
        p = m.let("p", f"[{x} + 0.2*sin({m.number(0.5, 2)}*t), 0]")
    else:
        p = m.let("p", f"[{x}, 0]")
    m.point_mass(p, 1)
    m.points2.append(p)
    return p


def block_chain(m, base=None):
    """A planar chain of 1-3 links, absolute or relative angles, written with rot() or sin/cos."""
    prev, total = base, "0"
    for _ in range(m.rng.randint(1, 3)):
        th = m.coord("th")
        m.angles.append(th)
        total = th if m.rng.random() < 0.5 else f"{total} + {th}"
        length = m.const("l", 0.3, 1.0)
        if m.rng.random() < 0.5:
            rel = f"rot({total})*[0, -{length}]"
        else:
            rel = f"{length}*[sin({total}), -cos({total})]"
        prev = m.let("p", f"{prev} + {rel}" if prev else rel)
        m.point_mass(prev, 1)
        m.points2.append(prev)
    return prev


def block_warped(m):
    """A point whose position is a smooth warp of two coordinates: the smooth built-ins."""
    a, b = m.coord("a"), m.coord("b")
    p = m.let("p", f"[{a} + 0.3*{m.smooth(b)}, {b} + 0.2*{m.smooth(a)}]")
    m.point_mass(p, 1)
    m.points2.append(p)
    if m.rng.random() < 0.5:
        z = m.let("p", f"[{m.smooth(a)}, {a}*{b}*0.1, 0.5*{m.smooth(b)}]")
        m.point_mass(z, 2)
        m.points3.append(z)


def rotation(m, angles):
    forms = ["rotz({0})*roty({1})*rotx({2})", "rotx({0})*rotz({1})*roty({2})",
             "rot([1, 2, 2], {0})*roty({1})*rotz({2})", "rotz({0})*rot([0, 1, 0], {1})*rotx({2})"]
    return m.rng.choice(forms).format(*angles)


def block_body3d(m):
    """A 3-D rigid body on three angles: R, omega = vee(R^T dR/dt), a full inertia tensor."""
    angles = [m.coord("r") for _ in range(3)]
    R = m.let("R", rotation(m, angles))
    W = m.let("W", f"transpose({R})*der({R})")
    w = m.let("w", f"[{W}[2][1], {W}[0][2], {W}[1][0]]")
    ixx, iyy, izz = (m.const("I", 0.05, 0.1) for _ in range(3))
    ixy = "0.01" if m.rng.random() < 0.5 else "0"
    J = m.let("J", f"[[{ixx}, {ixy}, 0], [{ixy}, {iyy}, 0], [0, 0, {izz}]]")
    m.lines.append(f"kinetic 0.5*dot({w}, {J}*{w})")
    c = m.let("c", f"{R}*[0, 0, {m.const('h', 0.1, 0.4)}]")
    m.point_mass(c, 2)
    m.points3.append(c)
    m.omegas.append(w)
    if m.rng.random() < 0.5:
        tip = m.let("v", f"cross({w}, [0.1, 0, 0.2])")
        m.lines.append(f"output {m.fresh('spin')} = {tip}")
    if m.rng.random() < 0.5:
        m.lines.append(f"output {m.fresh('frame')} = {R}")


def block_pendulum_constraint(m):
    """Cartesian pendulum: one scalar constraint, its length sometimes moving with t."""
    x, y = m.coord("x"), m.coord("y")
    length = m.const("L", 0.5, 1.0)
    if m.rng.random() < 0.4:
        length = f"({length} + 0.1*sin({m.number(0.5, 2)}*t))"
    m.lines.append(f"constraint 0.5*({x}^2 + {y}^2 - {length}^2)")
    p = m.let("p", f"[{x}, {y}]")
    m.point_mass(p, 1)
    m.points2.append(p)
    m.constraints += 1


def block_vector_constraint(m):
    """A point tied to an angle by a vector constraint (two rows)."""
    x, y, th = m.coord("x"), m.coord("y"), m.coord("th")
    length = m.const("l", 0.4, 1.0)
    p = m.let("p", f"[{x}, {y}]")
    form = m.rng.choice(["{p} = {l}*[sin({t}), -cos({t})]", "{p} - rot({t})*[0, -{l}]"])
    m.lines.append("constraint " + form.format(p=p, l=length, t=th))
    m.point_mass(p, 1)
    m.points2.append(p)
    m.constraints += 2


def block_matrix_constraint(m):
    """A 2x2 matrix of coordinates kept orthogonal (symmetric: three rows) or equal to rot(th)."""
    a, b, c, d = (m.coord("e") for _ in range(4))
    R = m.let("R", f"[[{a}, {b}], [{c}, {d}]]")
    if m.rng.random() < 0.5:
        m.lines.append(f"constraint transpose({R})*{R} = [[1, 0], [0, 1]]")
        m.constraints += 3
    else:
        th = m.coord("th")
        m.lines.append(f"constraint {R} = rot({th})")
        m.constraints += 4
    p = m.let("p", f"{R}*[{m.const('l', 0.3, 0.8)}, 0]")
    m.point_mass(p, 1)
    m.points2.append(p)


def block_velocity_constraint(m):
    """Rolling (integrable), a sled (non-holonomic) or a rate fixed in time (rheonomic)."""
    kind = m.rng.choice(["roll", "sled", "rate"])
    if kind == "roll":
        s, phi = m.coord("s"), m.coord("phi")
        m.lines.append(f"constraint der({s}) = {m.const('R', 0.1, 0.4)}*der({phi})")
    elif kind == "sled":
        x, y, th = m.coord("x"), m.coord("y"), m.coord("th")
        m.lines.append(f"constraint der({y})*cos({th}) - der({x})*sin({th}) = 0")
        p = m.let("p", f"[{x}, {y}]")
        m.point_mass(p, 1)
        m.points2.append(p)
    else:
        s = m.coord("s")
        m.lines.append(f"constraint der({s}) = {m.number(0.1, 0.5)}*cos({m.number(0.5, 2)}*t)")
    m.constraints += 1


def block_rheonomic(m):
    """A slider whose position is prescribed in time (a holonomic rheonomic constraint)."""
    z = m.coord("z")
    other = m.rng.choice(m.coords[:-1]) if len(m.coords) > 1 else "0"
    m.lines.append(f"constraint {z} = {m.number(0.1, 0.5)}*sin({m.number(0.5, 2)}*t) + 0.1*{other}")
    m.constraints += 1
    p = m.let("p", f"[{z}, 0.5]")
    m.point_mass(p, 1)
    m.points2.append(p)


BLOCKS = [block_chain, block_warped, block_body3d, block_pendulum_constraint,
          block_vector_constraint, block_matrix_constraint, block_velocity_constraint,
          block_rheonomic]


def feature_spring(m):
    """A spring between two points of one dimension (norm), or to an anchor (dot)."""
    pts = m.rng.choice([m.points2, m.points3]) or m.points2
    if not pts:
        return
    k = m.const("k", 1.0, 20.0)
    a = m.rng.choice(pts)
    b = m.rng.choice(pts)
    anchor = "[0.1, 0.2]" if pts is m.points2 else "[0.1, 0.2, 0.3]"
    if a != b and m.rng.random() < 0.6:
        m.lines.append(f"potential 0.5*{k}*(norm({a} - {b} + {anchor}) - {m.number(0.1, 0.5)})^2")
    else:
        m.lines.append(f"potential 0.5*{k}*dot({a} - {anchor}, {a} - {anchor})")


def feature_potential(m):
    """A potential of one coordinate: smooth, or one-sided (a wall: max/min)."""
    q, k = m.rng.choice(m.coords), m.const("k", 0.5, 5.0)
    form = m.rng.choice(["{k}*(1 - cos({q}))", "{k}*log(cosh({q}))", "0.5*{k}*max({q}, 0)^2",
                         "0.5*{k}*min({q}, 0)^2", "{k}*sqrt(1 + {q}^2)", "{k}*exp(-{q}^2)"])
    m.lines.append("potential " + form.format(k=k, q=q))


def feature_dissipation(m):
    """Rayleigh terms: linear dampers on a coordinate or a point, a cubic one with abs."""
    c = m.const("c", 0.05, 0.5)
    roll = m.rng.random()
    if roll < 0.4 or not (m.points2 or m.points3):
        m.lines.append(f"dissipation 0.5*{c}*der({m.rng.choice(m.coords)})^2")
    elif roll < 0.7:
        p = m.rng.choice(m.points2 + m.points3)
        m.lines.append(f"dissipation 0.5*{c}*dot(der({p}), der({p}))")
    else:
        m.lines.append(f"dissipation {c}*abs(der({m.rng.choice(m.coords)}))^3/3")


def feature_force_on(m):
    """force EXPR on COORD: inputs (scaled, several on one coordinate), friction, saturation, t."""
    q = m.rng.choice(m.coords)
    roll = m.rng.random()
    if roll < 0.3:
        u = m.input()
        scale = m.const("b", 0.5, 2.0) + "*" if m.rng.random() < 0.5 else ""
        m.lines.append(f"force {scale}{u} on {q}")
        if m.rng.random() < 0.5:   # several inputs on one coordinate
            m.lines.append(f"force {m.input()} - 0.5*{m.input()} on {q}")
    elif roll < 0.45:
        m.lines.append(f"force -{m.const('mu', 0.05, 0.3)}*sign(der({q})) on {q}")
    elif roll < 0.6:
        fmax = m.const("Fmax", 0.5, 2.0)
        m.lines.append(f"force min(max({m.input()}, -{fmax}), {fmax}) on {q}")
    elif roll < 0.75:
        m.lines.append(f"force {m.number(0.1, 1)}*sin({m.number(0.5, 3)}*t) on {q}")
    else:
        m.lines.append(f"force -{m.const('c', 0.1, 0.5)}*der({q}) + 0.1*tanh({q}) on {q}")


def feature_force_at(m):
    """force VEC at POINT: input-scaled (q_e*[Ex, Ey]), a drag, a 3-D push."""
    if m.points3 and m.rng.random() < 0.4:
        p = m.rng.choice(m.points3)
        m.lines.append(f"force [0, {m.input()}, -{m.const('c', 0.1, 0.5)}*der({p})[2]] at {p}")
        return
    if not m.points2:
        return
    p = m.rng.choice(m.points2)
    if m.rng.random() < 0.6:
        scale = m.const("qe", 0.5, 2.0) if m.rng.random() < 0.7 else m.number(0.5, 2)
        m.lines.append(f"force {scale}*[{m.input()}, {m.input()}] at {p}")
    else:
        m.lines.append(f"force -{m.const('c', 0.1, 0.5)}*der({p}) at {p}")


def feature_torque(m):
    """torque VEC at OMEGA on a 3-D body, or a scalar torque at a planar angle's rate."""
    if m.omegas and m.rng.random() < 0.6:
        w = m.rng.choice(m.omegas)
        if m.rng.random() < 0.6:
            m.lines.append(f"torque [{m.input()}, 0, {m.input()}] at {w}")
        else:
            m.lines.append(f"torque -{m.const('c', 0.01, 0.1)}*{w} at {w}")
    elif m.angles:
        m.lines.append(f"torque {m.input()} at der({m.rng.choice(m.angles)})")


def feature_lagrangian(m):
    """lagrangian terms: gyroscopic (linear in velocities), a potential, a quadratic one."""
    if len(m.coords) < 2:
        return
    a, b = m.rng.sample(m.coords, 2)
    roll = m.rng.random()
    if roll < 0.5:
        m.lines.append(f"lagrangian {m.const('B', 0.1, 0.5)}*({a}*der({b}) - {b}*der({a}))")
    elif roll < 0.75:
        m.energy = False   # V in L: T + V is not the energy
        m.lines.append(f"lagrangian -0.5*{m.const('k', 0.5, 2.0)}*{a}^2")
    else:
        m.energy = m.m_from_t = False   # adds to M and to the energy
        m.lines.append(f"lagrangian 0.5*{m.const('J', 0.01, 0.05)}*(1 + 0.5*cos({b}))*der({a})^2")


def random_expr(m, names, depth):
    """A scalar expression of the names through random built-ins (smooth and kinked)."""
    if depth == 0:
        return f"{m.number(0.2, 1)}*{m.rng.choice(names)}"
    fmt = m.rng.choice(SMOOTH + KINKED)
    arg = random_expr(m, names, depth - 1)
    return fmt.format(*([arg] * fmt.count("{}")))


def feature_output(m):
    """Outputs: of q (with Jacobian and drift), of q, qd and u, of parameters, matrices."""
    roll, name = m.rng.random(), m.fresh("y")
    q_names = m.coords + ["t"] * (m.rng.random() < 0.2)
    if roll < 0.3 and (m.points2 or m.points3):
        m.lines.append(f"output {name} = {m.rng.choice(m.points2 + m.points3)}")
    elif roll < 0.55:
        m.lines.append(f"output {name} = {random_expr(m, q_names, m.rng.randint(1, 3))}")
    elif roll < 0.75:
        rates = [f"der({q})" for q in m.coords] + m.inputs
        m.lines.append(f"output {name} = {random_expr(m, q_names + rates, 2)}")
    elif roll < 0.85:
        q = m.rng.choice(m.coords)
        m.lines.append(f"output {name} = [[cos({q}), {q}], [{m.const('s', 0.5, 1)}, sin({q})]]")
    else:
        m.lines.append(f"output {name} = [{m.const('s', 0.5, 1)}*2, norm([{m.rng.choice(m.coords)}, 1])]")


FEATURES = [feature_spring, feature_potential, feature_dissipation, feature_force_on,
            feature_force_on, feature_force_at, feature_torque, feature_lagrangian, feature_output,
            feature_output]


def build(seed):
    """The model for one seed: blocks, then features, then the declarations in front."""
    rng = random.Random(seed)
    m = Model(rng, f"random_{seed}")
    base = block_cart(m) if rng.random() < 0.4 else None
    if base or rng.random() < 0.5:
        block_chain(m, base)
    for block in rng.sample(BLOCKS, rng.randint(1, 2)):
        block(m)
    for feature in rng.choices(FEATURES, k=rng.randint(2, 7)):
        feature(m)
    # Any len(SMOOTH) consecutive seeds use every built-in at least once.
    smooth, kinked = SMOOTH[seed % len(SMOOTH)], KINKED[seed % len(KINKED)]
    arg = kinked.format(*([rng.choice(m.coords)] * kinked.count("{}")))
    m.lines.append(f"output {m.fresh('mix')} = {smooth.format(*([arg] * smooth.count('{}')))}")
    if m.constraints and rng.random() < 0.8:
        m.lines.append(f"baumgarte alpha = {m.const('al', 2, 10)}, beta = 2*{m.const('be', 2, 10)}"
                       if m.use_params else "baumgarte alpha = 5, beta = 10")
    if "t" in " ".join(l for l in m.lines if l.split()[0] in ("kinetic", "potential", "lagrangian")).split():
        m.energy = False
    return m


def uses_time(text):
    import re
    return re.search(r"\bt\b", text) is not None


def render(m):
    """The model's text: meta comments, model, declarations, then the statements."""
    head = [f"# lagc-random: seed model {m.name}",
            f"# lagc-random: energy={int(m.energy)} m_from_t={int(m.m_from_t)}"]
    if m.unset:
        head.append("# lagc-random: set " + " ".join(f"{k}={v}" for k, v in m.unset.items()))
    head.append(f"model {m.name}")
    head += [f"parameter {p}" for p in m.params]
    head.append("coordinate " + ", ".join(m.coords))
    if m.inputs:
        head.append("input " + ", ".join(m.inputs))
    return "\n".join(head + m.lines) + "\n"


def generate(seed):
    return render(build(seed))


if __name__ == "__main__":
    import sys
    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 1), end="")
