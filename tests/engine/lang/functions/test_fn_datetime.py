"""Date and time functions, checked against the examples in Terraform's function documentation."""

import re
from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function
from vocab.values import Unknown

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))


def call(name: str, *args: object, ctx: FunctionContext = CTX) -> object:
    return call_function(name, list(args), ctx)


@pytest.mark.parametrize(
    ("spec", "timestamp", "expected"),
    [
        ("DD MMM YYYY hh:mm ZZZ", "2018-01-02T23:12:01Z", "02 Jan 2018 23:12 UTC"),
        ("EEEE, DD-MMM-YY hh:mm:ss ZZZ", "2018-01-02T23:12:01Z", "Tuesday, 02-Jan-18 23:12:01 UTC"),
        ("EEE, DD MMM YYYY hh:mm:ss ZZZ", "2018-01-02T23:12:01-08:00", "Tue, 02 Jan 2018 23:12:01 -0800"),
        ("MMM DD, YYYY", "2018-01-02T23:12:01Z", "Jan 02, 2018"),
        ("HH:mmaa", "2018-01-02T23:12:01Z", "11:12pm"),
        ("h'h'mm", "2018-01-02T23:12:01-08:00", "23h12"),
        ("H 'o''clock'", "2018-01-02T23:12:01-08:00", "11 o'clock"),
        ("YYYY-MM-DD'T'hh:mm:ssZ", "2018-01-02T23:12:01Z", "2018-01-02T23:12:01Z"),
        ("YYYY-MM-DD'T'hh:mm:ssZ", "2018-01-02T23:12:01+05:30", "2018-01-02T23:12:01+05:30"),
        ("EEEE, MMMM D, YYYY", "2020-09-16T00:00:00Z", "Wednesday, September 16, 2020"),
        ("ZZZZ ZZZZZ", "2018-01-02T23:12:01Z", "+0000 +00:00"),
        ("M/D h:m:s AA", "2018-03-04T05:06:07Z", "3/4 5:6:7 AM"),
    ],
)
def test_formatdate(spec: str, timestamp: str, expected: str) -> None:
    assert call("formatdate", spec, timestamp) == expected


def test_formatdate_errors() -> None:
    with pytest.raises(FunctionError, match="RFC 3339") as exc:
        call("formatdate", "YYYY", "2018-01-02")
    assert exc.value.arg_index == 1
    with pytest.raises(FunctionError, match="invalid date format verb") as exc:
        call("formatdate", "YYY", "2018-01-02T23:12:01Z")
    assert exc.value.arg_index == 0
    with pytest.raises(FunctionError, match="unterminated"):
        call("formatdate", "'oops", "2018-01-02T23:12:01Z")


@pytest.mark.parametrize(
    ("timestamp", "duration", "expected"),
    [
        ("2024-08-16T12:45:05Z", "10m", "2024-08-16T12:55:05Z"),
        ("2024-08-16T12:45:05Z", "-10m", "2024-08-16T12:35:05Z"),
        ("2017-11-22T00:00:00Z", "10m", "2017-11-22T00:10:00Z"),
        ("2017-11-22T00:00:00Z", "1h30m", "2017-11-22T01:30:00Z"),
        ("2017-11-22T00:00:00Z", "1.5h", "2017-11-22T01:30:00Z"),
        ("2017-11-22T00:00:00Z", "-2h5m", "2017-11-21T21:55:00Z"),
        ("2017-11-22T00:00:00+01:00", "24h", "2017-11-23T00:00:00+01:00"),
        ("2017-11-22T00:00:00.5Z", "500ms", "2017-11-22T00:00:01Z"),
    ],
)
def test_timeadd(timestamp: str, duration: str, expected: str) -> None:
    assert call("timeadd", timestamp, duration) == expected


def test_timeadd_rejects_bad_durations() -> None:
    for bad in ("10", "ten minutes", "1d", ""):
        with pytest.raises(FunctionError, match="duration") as exc:
            call("timeadd", "2017-11-22T00:00:00Z", bad)
        assert exc.value.arg_index == 1


def test_timecmp() -> None:
    assert call("timecmp", "2017-11-22T00:00:00Z", "2017-11-22T00:00:00Z") == 0
    assert call("timecmp", "2017-11-22T00:00:00Z", "2017-11-22T01:00:00Z") == -1
    assert call("timecmp", "2017-11-22T01:00:00Z", "2017-11-22T00:00:00Z") == 1
    assert call("timecmp", "2017-11-22T01:00:00Z", "2017-11-22T00:00:00-01:00") == 0


def test_timestamp_is_current_utc_time_in_rfc3339() -> None:
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", call("timestamp"))


def test_timestamp_is_unknown_during_plan() -> None:
    plan = FunctionContext(base_dir=Path("."), module_dir=Path("."), plan_mode=True)
    assert isinstance(call("timestamp", ctx=plan), Unknown)


def test_plantimestamp_is_the_recorded_plan_time() -> None:
    plan = FunctionContext(
        base_dir=Path("."), module_dir=Path("."), plan_mode=True, plan_timestamp="2018-05-13T07:44:12Z"
    )
    assert call("plantimestamp", ctx=plan) == "2018-05-13T07:44:12Z"
    assert isinstance(call("plantimestamp"), Unknown)


@pytest.mark.parametrize("stamp", ["2024-01-01t00:00:00Z", "2024-01-01T00:00:00z", "2016-12-31T23:59:60Z"])
def test_lower_case_introducers_and_leap_seconds_are_refused(stamp: str) -> None:
    for fn, args in (("timeadd", (stamp, "1h")), ("formatdate", ("YYYY", stamp)), ("timecmp", (stamp, stamp))):
        with pytest.raises(FunctionError, match="not a valid RFC 3339 timestamp"):
            call(fn, *args)
