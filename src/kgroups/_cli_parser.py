"""The argument parser's machinery for the ``kgroups`` command: help that states each
default, usage errors in one line with the nearest known option, the value types, and
the options built from the tables of :mod:`kgroups._cli_options`.

It imports nothing beyond the standard library and those tables, so that ``kgroups
--help`` starts at once.
"""

from __future__ import annotations

import argparse
import sys

from ._cli_csv import UsageError
from ._cli_options import DECIMALS, ESTIMATOR_CHOICES, ESTIMATOR_DEFAULTS


class Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults appended to every option's help unless the help already states one."""

    def _get_help_string(self, action):
        if "(default" in (action.help or "") or action.required:
            return action.help
        return super()._get_help_string(action)

    def _split_lines(self, text, width):
        """Wrap at spaces only: option values such as matrix-free stay whole."""
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (raised, so ``main`` can return 2), and
    an unknown option is reported by its command with the nearest known one."""

    commands = {}  # command name -> its parser (set on the top-level parser)

    def error(self, message):
        err = UsageError(f"{message} (see '{self.prog} --help')")
        err.prog = self.prog
        raise err

    def parse_args(self, args=None, namespace=None):
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            owner = self.commands.get(getattr(parsed, "command", None), self)
            owner.error(f"unrecognized arguments: {' '.join(extras)}"
                        f"{nearest_options(extras, owner)}"
                        f"{list_tip(sys.argv[1:] if args is None else args, extras)}")
        return parsed


# Options whose value is one comma-separated list, as ``cut -f`` takes it.
LIST_OPTIONS = ("--columns", "--drop-columns")


def list_tip(args, extras):
    """``; --columns takes one comma-separated list: --columns x,y`` where a word after
    a list option's value was left over (the list written with spaces)."""
    args = [str(a) for a in args]
    for j, a in enumerate(args[:-2]):
        if a in LIST_OPTIONS and args[j + 2] in extras and not args[j + 2].startswith("-"):
            more = [t for t in args[j + 2:] if t in extras and not t.startswith("-")]
            return (f"; {a} takes one comma-separated list: {a} "
                    f"{','.join([args[j + 1], *more])}")
    return ""


def nearest_options(extras, parser):
    """``; did you mean --n-init?`` for the unknown options among ``extras``."""
    import difflib

    known = [o for action in parser._actions for o in action.option_strings
             if o.startswith("--")]
    tips = []
    for token in extras:
        name = token.split("=", 1)[0]
        if not name.startswith("--") or name in known:
            continue
        dashed = name.replace("_", "-")
        match = [dashed] if dashed in known else difflib.get_close_matches(name, known, 1, 0.6)
        tips += [(name, match[0])] if match else []
    if len(tips) == 1:
        return f"; did you mean {tips[0][1]}?"
    return f"; did you mean {', '.join(f'{m} for {n}' for n, m in tips)}?" if tips else ""


def int_or_auto(text):
    """``--n-init``: ``auto`` or an integer (its range is checked with the others)."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} should be 'auto' or an integer >= 1") \
            from None


def float_or_auto(text):
    """``--noise``: ``auto``, ``none`` (None, the default) or a number (its range is
    checked with the others)."""
    if text == "auto":
        return text
    if text in ("none", "None"):
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} should be 'auto', 'none' or a share in [0, 0.5)") from None


def decimal_name(text):
    """``--decimal``: a name of :data:`DECIMALS`, or the mark itself (``.``, ``,``)."""
    return {".": "point", ",": "comma"}.get(text, text)


TYPES = {"int": int, "float": float, "int_or_auto": int_or_auto,
         "float_or_auto": float_or_auto, "choice": None}

COLUMN_HELP = "(a header name, or a number counted from 1; -1 is the last column)"

COLUMNS_HELP = ("a comma-separated list of header names, numbers counted from 1 (-1 is the "
                "last) and ranges such as 2-5 or 3- (to the last), as cut -f takes them")


def add_table_options(group):
    """The options that choose the feature columns and how numbers are written, shared
    by cluster and choose-k."""
    group.add_argument("--columns", metavar="COLUMNS",
                       help=f"the feature columns: {COLUMNS_HELP}; the other columns are not "
                            "read as numbers, so they may hold text (default: every column "
                            "besides --weights and --label-column)")
    group.add_argument("--drop-columns", metavar="COLUMNS",
                       help="columns left out of the features (ids, names, text), listed as "
                            "for --columns (default: none)")
    group.add_argument("--decimal", default="auto", type=decimal_name,
                       choices=tuple(DECIMALS),
                       help="decimal mark of the numbers: point (1.5) or comma (1,5); '.' and "
                            "',' name them too. auto: comma when the fields are not separated "
                            "by commas and some hold numbers such as 1,5 but none such as 1.5, "
                            "else point")


def add_estimator_option(group, flags, attr, param, kind, metavar, text):
    """One option of CLUSTER_OPTIONS: default and choices from the library's tables."""
    text = text.replace("%", "%%")  # argparse %-formats help strings
    if kind == "count":
        group.add_argument(*flags, dest=attr, action="count",
                           default=ESTIMATOR_DEFAULTS[param], help=text)
    elif param in ("n_clusters", "semimetric"):  # the defaults follow each other: _defaults
        group.add_argument(*flags, dest=attr, type=TYPES[kind], default=None,
                           metavar=metavar, choices=ESTIMATOR_CHOICES.get(param), help=text)
    else:
        group.add_argument(*flags, dest=attr, type=TYPES[kind], metavar=metavar,
                           default=ESTIMATOR_DEFAULTS[param],
                           choices=ESTIMATOR_CHOICES.get(param), help=text)
