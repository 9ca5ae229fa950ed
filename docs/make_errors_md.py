#!/usr/bin/env python3
"""Writes docs/errors.md from the diagnostics goldens (tests/diagnostics/*.lag and .stderr).

Run after `cmake --build build --target update_goldens`; the test suite checks that
docs/errors.md shows every case's current messages.
"""
import glob
import os

TITLES = {
    'syntax_expected_paren': 'Syntax: a missing closing bracket',
    'syntax_missing_operand': 'Syntax: an operator without an operand',
    'syntax_unknown_statement': 'Syntax: an unknown statement',
    'syntax_trailing_tokens': 'Syntax: something after a complete statement',
    'syntax_lists': 'Syntax: lists of names',
    'malformed_number': 'Malformed numbers',
    'unknown_name': 'Unknown names',
    'duplicate_name': 'Duplicate names',
    'reserved_words': 'Reserved words',
    'cxx_keyword_model': 'C++ keywords',
    'argument_count': 'Wrong number of arguments',
    'shape_mismatch': 'Shape mismatches',
    'index_errors': 'Bad or out-of-range indexing',
    'potential_velocity': 'A potential that depends on velocities',
    'acceleration': 'Accelerations',
    'der_of_input': 'The derivative of an input',
    'force_target': 'Forces and torques on the wrong thing',
    'velocity_constraint_not_affine': 'A velocity constraint not affine in the velocities',
    'baumgarte_gain_state': 'Baumgarte gains',
    'singular_mass_matrix': 'A coordinate with no inertia (singular mass matrix)',
    'robot_mjcf': 'Robot files: mistakes in an MJCF file (at their lines), and what is left out',
    'robot_urdf': 'Robot files: mistakes in a URDF file',
    'log_of_zero': 'log(0) and other poles',
    'division_by_zero': 'Division by zero',
    'missing_model': 'A missing model statement',
    'empty_model': 'An empty file',
    'no_coordinates': 'A model without coordinates',
    'too_deep': 'Nesting too deep',
    'expression_swell': 'Expressions that swell',
    'bad_byte': 'Bytes that are not part of the language',
    'warnings_constraints': 'Warnings about constraints',
    'note_coriolis': 'Note: no Coriolis matrix',
    'several_errors': 'Several errors in one run',
    'kinetic_without_velocity': 'Warning: a kinetic term without a velocity (a forgotten der())',
    'kinetic_linear_in_velocity': 'A kinetic energy linear in the velocities (a magnetic field)',
    'singular_combination': 'A velocity combination with no inertia',
    'negative_kinetic': 'A negative kinetic energy',
    'indefinite_kinetic': 'An indefinite kinetic energy',
    'indefinite_somewhere': 'Warning: a kinetic energy negative at some configurations',
    'dependent_constraints': 'Constraints that depend on each other',
    'identical_constraints': 'The same constraint twice',
    'constraint_determines_coordinate': 'Note: a coordinate without inertia that the constraints determine',
    'undetermined_coordinate': 'A coordinate without inertia that the constraints do not determine',
    'linear_in_velocity': 'A coordinate whose velocity appears only linearly',
    'more_than_quadratic': 'A term more than quadratic in the velocities',
    'cascade_let': 'No cascade: a broken let',
    'cascade_coordinates': 'No cascade: a list without commas',
    'semicolon': 'A semicolon',
    'unclosed_bracket': 'An unclosed bracket',
    'trailing_operator': 'A trailing operator before the next statement',
    'did_you_mean': 'Misspelt names and functions',
    'other_languages': 'Operators from other languages (** and ==)',
    'non_ascii': 'Letters outside ASCII',
    'parameter_defaults': 'Parameter defaults that are not constants',
    'rotation_axis': 'Rotations about an axis: rot(axis, angle)',
}
# Cases whose source is not shown verbatim (too long, or not printable).
DESCRIBED = {'too_deep': 'A statement 250 brackets deep:', 'bad_byte': 'A line ending in the byte 0xFF:'}


def main() -> None:
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    out = ['# Errors, warnings and notes', '',
           'Every diagnostic names the file, line and column, shows the source line and puts a caret',
           'under the offending token. lagc keeps going after an error where that is safe and reports',
           'every independent error in one run; an error caused by an earlier one is not repeated.',
           'A model with errors exits with status 1 and writes nothing.', '',
           "The examples below are the test suite's own cases (`tests/diagnostics/`): each is compiled",
           'and its standard error compared byte for byte with what is shown here.', '',
           'Errors on the command line (unknown options, unreadable input, unwritable output) are',
           'printed as `lagc: error: ...` and exit with status 2; see [cli.md](cli.md).', '']
    cases = sorted(glob.glob(os.path.join(root, 'tests', 'diagnostics', '*.lag')))
    cases += sorted(glob.glob(os.path.join(root, 'tests', 'diagnostics', '*.xml')))
    cases += sorted(glob.glob(os.path.join(root, 'tests', 'diagnostics', '*.urdf')))
    for case in cases:
        name, _ = os.path.splitext(os.path.basename(case))
        source = open(case, encoding='utf-8', errors='surrogateescape').read()
        stderr = open(os.path.splitext(case)[0] + '.stderr', encoding='utf-8', errors='surrogateescape').read()
        out += ['## ' + TITLES.get(name, name.replace('_', ' ')), '']
        if name in DESCRIBED:
            out += [DESCRIBED[name], '']
        else:
            out += ['```', source.rstrip('\n'), '```', '']
        out += ['```', stderr.rstrip('\n'), '```', '']
    out += ['## Controlling warnings and notes', '',
            'Every warning and note ends with the option that silences it, such as',
            '`[-Wkinetic-without-velocity]`: `-Wno-kinetic-without-velocity` hides that kind, `-w`',
            'hides all warnings and notes, and `-Werror` turns warnings into errors (exit status 1,',
            'nothing written). Errors cannot be silenced. The kinds are listed in',
            '[cli.md](cli.md#warnings-and-notes).', '']
    with open(os.path.join(root, 'docs', 'errors.md'), 'w', encoding='utf-8', errors='surrogateescape') as f:
        f.write('\n'.join(out))


if __name__ == '__main__':
    main()
