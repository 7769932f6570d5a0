"""engine.datasets.target_columns: the targets of a CSV chosen in one move, in the file's order."""
import gzip

import pytest

from engine.datasets.target_columns import binary_columns, choose_targets, describe_rule, parse_rule, rule_text

HEADER = ["tag_02", "x1", "tag_00", "x2", "y", "tag_01"]


@pytest.mark.parametrize("rule, expected", [
    ("last-2", ["y", "tag_01"]),
    ("prefix-tag_", ["tag_02", "tag_00", "tag_01"]),          # the file's order, not sorted by name
    ("pick-y,tag_02", ["tag_02", "y"]),                     # the file's order, not the order picked
    ("binary", ["tag_02", "tag_00"]),
])
def test_each_rule_chooses_in_the_files_order(rule, expected):
    assert choose_targets(HEADER, rule, binary=["tag_00", "tag_02"]) == expected


def test_rules_round_trip_as_text():
    for kind, value in [("last", 3), ("prefix", "a_b-c"), ("binary", None), ("pick", ["a,b", "c d", "é"])]:
        assert parse_rule(rule_text(kind, value)) == (kind, value)
    assert describe_rule("prefix-tag_") == "the columns starting with “tag_”"
    assert describe_rule("last-1") == "the last column"


@pytest.mark.parametrize("rule, match", [
    ("last-6", "no feature"), ("last-0", "last-<k>"), ("prefix-zz", "starts with “zz”"), ("pick-nope", "not found"),
    ("pick-" + ",".join(HEADER), "every column"), ("prefix-", "prefix-<text>"), ("sort", "last-<k>"),
])
def test_a_rule_that_cannot_choose_says_why(rule, match):
    with pytest.raises(ValueError, match=match):
        choose_targets(HEADER, rule, binary=[])


def test_binary_rule_needs_and_finds_the_01_columns():
    raw = b"a,b,c,d\n0,1,0.5,1\n1,1,2,\n0,0,3,0\n"
    assert binary_columns(raw) == ["a", "b"]                 # d has a missing value, c other values
    assert binary_columns(gzip.compress(raw)) == ["a", "b"]
    assert binary_columns(b"\xff\xfe\x00") == []
    with pytest.raises(ValueError, match="no column holds only 0 and 1"):
        choose_targets(["a", "c"], "binary", binary=[])
    with pytest.raises(ValueError, match="needs the file's 0/1 columns"):
        choose_targets(["a", "c"], "binary")
