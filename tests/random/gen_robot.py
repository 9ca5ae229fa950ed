"""Seeded generator of random robot files: MJCF and URDF trees with every joint kind and
frame form, fixed bodies, branches, floating bases, armature, damping and springs.

Every moving body has a positive-definite inertia that satisfies the triangle inequality
(principal moments in [0.02, 0.03], turned by a random rotation), so M is regular but for
the quaternions' norm direction, which their constraints remove.
"""
import math
import random


def f(x):
    return f"{x:.4g}"


def vec(rng, n, lo=-0.3, hi=0.3):
    return " ".join(f(rng.uniform(lo, hi)) for _ in range(n))


# Tame files (a quarter of the seeds) keep to frame axes and two-digit numbers, as many
# published files do; the others turn their frames and axes obliquely with full-precision
# decimals (which once stopped lagc's derivation: regressions/derivation_constant_overflow.urdf).
TAME = {"on": False}


def unit_axis(rng):
    """Mostly a frame axis (what real files use), sometimes oblique, any sign or length."""
    if TAME["on"] or rng.random() < 0.75:
        axis = [0, 0, 0]
        axis[rng.randrange(3)] = rng.choice([1, -1, 2])
        return " ".join(map(str, axis))
    return vec(rng, 3, -1, 1)


def rotation(rng):
    """A random rotation matrix (from a random unit quaternion)."""
    w, x, y, z = (rng.gauss(0, 1) for _ in range(4))
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]


def inertia(rng):
    """(ixx, iyy, izz, ixy, ixz, iyz) of R diag(I) R^T: positive definite, triangle-safe."""
    d = [rng.uniform(0.02, 0.03) for _ in range(3)]
    R = rotation(rng) if rng.random() < 0.6 and not TAME["on"] else [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    I = [[sum(R[i][k] * d[k] * R[j][k] for k in range(3)) for j in range(3)] for i in range(3)]
    return I[0][0], I[1][1], I[2][2], I[0][1], I[0][2], I[1][2]


# ---------------------------------------------------------------- MJCF
def mjcf_frame(rng, degrees):
    """One of MJCF's orientation forms (or none), in the compiler's angle unit."""
    unit = 180 / math.pi if degrees else 1
    form = rng.choice(["none", "quat", "axisangle", "euler", "xyaxes", "zaxis"])
    if TAME["on"]:
        return rng.choice(["", ' euler="0 0 90"' if degrees else ' euler="0 0 1.5707963267948966"',
                           ' quat="0 1 0 0"', ' zaxis="0 1 0"', ' xyaxes="0 1 0 -1 0 0"'])
    if form == "quat":
        return f' quat="{vec(rng, 4, -2, 2)}"'
    if form == "axisangle":
        return f' axisangle="{vec(rng, 3, -1, 1)} {f(rng.uniform(-1.5, 1.5) * unit)}"'
    if form == "euler":
        return f' euler="{" ".join(f(rng.uniform(-1, 1) * unit) for _ in range(3))}"'
    if form == "xyaxes":
        return f' xyaxes="1 {vec(rng, 2, -0.5, 0.5)} {vec(rng, 1, -0.5, 0.5)} 1 {vec(rng, 1, -0.5, 0.5)}"'
    if form == "zaxis":
        return f' zaxis="{vec(rng, 2, -0.5, 0.5)} 1"'
    return ""


def mjcf_inertial(rng):
    ixx, iyy, izz, ixy, ixz, iyz = inertia(rng)
    mass, pos = f(rng.uniform(0.5, 2.0)), vec(rng, 3, -0.1, 0.1)
    if rng.random() < 0.5:
        return f'<inertial pos="{pos}" mass="{mass}" fullinertia="{f(ixx)} {f(iyy)} {f(izz)} {f(ixy)} {f(ixz)} {f(iyz)}"/>'
    turn = f' quat="{vec(rng, 4, 0.2, 1)}"' if rng.random() < 0.5 and not TAME["on"] else ""
    d = sorted([rng.uniform(0.02, 0.03) for _ in range(3)])
    return f'<inertial pos="{pos}" mass="{mass}" diaginertia="{" ".join(map(f, d))}"{turn}/>'


def mjcf_joint_attrs(rng, degrees):
    """armature, damping, a spring with springref, ref, a class: each sometimes."""
    unit = 180 / math.pi if degrees else 1
    attrs = ""
    if rng.random() < 0.4:
        attrs += f' armature="{f(rng.uniform(0.005, 0.05))}"'
    if rng.random() < 0.4:
        attrs += f' damping="{f(rng.uniform(0.01, 0.3))}"'
    if rng.random() < 0.3:
        attrs += f' stiffness="{f(rng.uniform(0.5, 5))}" springref="{f(rng.uniform(-0.5, 0.5) * unit)}"'
    if rng.random() < 0.2:
        attrs += f' ref="{f(rng.uniform(-0.3, 0.3) * unit)}"'
    if rng.random() < 0.3:
        attrs += ' class="soft"'
    return attrs


def mjcf_joints(rng, gen, degrees):
    """The joints of one body: none (fixed), a hinge, a slide, a ball, or two of hinge/slide."""
    kind = rng.choice(["none", "hinge", "hinge", "slide", "ball", "two"])
    kinds = {"none": [], "two": [rng.choice(["hinge", "slide"]), "hinge"]}.get(kind, [kind])
    out = []
    for k in kinds:
        gen.joints += 1
        attrs = f' name="j{gen.joints}" type="{k}"'
        if k != "ball":
            attrs += f' axis="{unit_axis(rng)}"'
        attrs += f' pos="{vec(rng, 3, -0.05, 0.05)}"' if rng.random() < 0.3 else ""
        out.append(f"<joint{attrs}{mjcf_joint_attrs(rng, degrees) if k != 'ball' else ''}/>")
    return out


class Budget:
    def __init__(self, rng):
        self.bodies = rng.randint(2, 5)
        self.joints = 0
        self.count = 0


def mjcf_body(rng, gen, depth, degrees, free):
    """A body with its joints, inertial, a site, and children while the budget lasts."""
    gen.count += 1
    name = f"b{gen.count}"
    head = f'<body name="{name}" pos="{vec(rng, 3)}"{mjcf_frame(rng, degrees)}'
    head += ' childclass="soft">' if rng.random() < 0.15 else ">"
    lines = [head]
    if free:
        lines.append(rng.choice(['<freejoint name="root"/>', '<joint name="root" type="free"/>', "<freejoint/>"]))
    else:
        lines += mjcf_joints(rng, gen, degrees)
    lines.append(mjcf_inertial(rng))
    if rng.random() < 0.4:
        lines.append(f'<site name="s{gen.count}" pos="{vec(rng, 3)}"/>')
    while gen.count < gen.bodies and depth < 4 and rng.random() < 0.8:
        lines += mjcf_body(rng, gen, depth + 1, degrees, False)
    return lines + ["</body>"]


def mjcf(rng, seed):
    degrees = rng.random() < 0.5
    seq = rng.choice(["xyz", "zyx", "XYZ", "ZYX", "xzy", "YZX"])
    gen = Budget(rng)
    body = mjcf_body(rng, gen, 0, degrees, free=rng.random() < 0.3)
    while gen.count < gen.bodies:   # a second tree from the world: branching at the root
        body += mjcf_body(rng, gen, 1, degrees, False)
    text = [f'<mujoco model="robot{seed}">',
            f'  <compiler angle="{"degree" if degrees else "radian"}" eulerseq="{seq}"/>',
            f'  <option gravity="0 0 -{f(rng.uniform(9, 10))}"/>',
            '  <default><joint damping="0.05"/><default class="soft"><joint armature="0.02" damping="0.2"/></default></default>',
            "  <worldbody>"]
    text += ["    " + line for line in body]
    return "\n".join(text + ["  </worldbody>", "</mujoco>"]) + "\n"


# ---------------------------------------------------------------- URDF
def urdf_inertial(rng):
    ixx, iyy, izz, ixy, ixz, iyz = inertia(rng)
    rpy = "0 0 0" if TAME["on"] else vec(rng, 3, -1, 1)
    return (f'<inertial><origin xyz="{vec(rng, 3, -0.1, 0.1)}" rpy="{rpy}"/>'
            f'<mass value="{f(rng.uniform(0.5, 2))}"/>'
            f'<inertia ixx="{f(ixx)}" iyy="{f(iyy)}" izz="{f(izz)}" ixy="{f(ixy)}" ixz="{f(ixz)}" iyz="{f(iyz)}"/></inertial>')


def urdf_joint(rng, name, kind, parent, child):
    parts = [f'<joint name="{name}" type="{kind}">', f'<parent link="{parent}"/>', f'<child link="{child}"/>',
             f'<origin xyz="{vec(rng, 3)}" rpy="{"0 0 0" if TAME["on"] else vec(rng, 3, -1.5, 1.5)}"/>']
    if kind in ("revolute", "continuous", "prismatic"):
        parts.append(f'<axis xyz="{unit_axis(rng)}"/>')
    if kind in ("revolute", "prismatic"):
        parts.append('<limit lower="-1" upper="1" effort="10" velocity="1"/>')
    if kind != "fixed" and kind != "floating" and rng.random() < 0.5:
        parts.append(f'<dynamics damping="{f(rng.uniform(0.01, 0.3))}"/>')
    return "".join(parts) + "</joint>"


def urdf(rng, seed):
    links, joints = ['<link name="base"/>'], []
    names = ["base"]
    floating = rng.random() < 0.3
    for i in range(1, rng.randint(3, 6)):
        child = f"l{i}"
        if i == 1 and floating:
            kind, parent = "floating", "base"
        else:
            kind = rng.choice(["revolute", "continuous", "prismatic", "fixed", "revolute"])
            parent = rng.choice(names[1:] if floating else names)
        links.append(f'<link name="{child}">{urdf_inertial(rng)}</link>')
        joints.append(urdf_joint(rng, f"j{i}", kind, parent, child))
        names.append(child)
    return "\n".join([f'<robot name="robot{seed}">'] + ["  " + x for x in links + joints] + ["</robot>"]) + "\n"


def generate(seed):
    """(file name, text): MJCF for even seeds, URDF for odd ones."""
    rng = random.Random(seed * 7919 + 17)
    TAME["on"] = seed % 4 == 0
    if seed % 2 == 0:
        return f"robot_{seed}.xml", mjcf(rng, seed)
    return f"robot_{seed}.urdf", urdf(rng, seed)


if __name__ == "__main__":
    import sys
    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0)[1], end="")
