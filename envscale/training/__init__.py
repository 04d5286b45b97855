"""`envscale train`: two-stage SFT with TRL (placeholder until the training module lands)."""

from __future__ import annotations

import argparse


def make_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("train", help="two-stage SFT of a tool-calling model with TRL")

    def _main(args: argparse.Namespace) -> int:
        raise ValueError("envscale train is not built yet")

    parser.set_defaults(func=_main)
    return parser
