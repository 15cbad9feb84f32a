"""A provider's error about an object without configuration (a destroy) names the object once."""

from __future__ import annotations

import pytest

from adapters.plugin.diagnostics import PluginDiagnostic
from adapters.plugin.outcome import raise_for
from cli import output
from vocab.errors import CtlError


def test_a_delete_error_names_the_address_once(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    output.configure(no_color=True, root=tmp_path)
    failed = PluginDiagnostic("error", "waiting for SQS Queue delete", "read tcp: connection reset")
    with pytest.raises(CtlError) as caught:
        raise_for([failed], "aws_sqs_queue.work", address="aws_sqs_queue.work")
    output.print_error(caught.value)
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith("Error: aws_sqs_queue.work: ")
    assert first.count("aws_sqs_queue.work") == 1, first
    assert "waiting for SQS Queue delete" in first


def test_another_subject_is_still_named(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    output.configure(no_color=True, root=tmp_path)
    failed = PluginDiagnostic("error", "bad region", "")
    with pytest.raises(CtlError) as caught:
        raise_for([failed], 'provider "aws"', address="aws_sqs_queue.work")
    output.print_error(caught.value)
    first = capsys.readouterr().err.splitlines()[0]
    assert 'provider "aws": bad region' in first
