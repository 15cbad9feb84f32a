"""provider_installation and plugin_cache_dir come from Terraform's CLI configuration file."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.install.cli_config import read_cli_config
from vocab.errors import CtlError

CONFIG = """
plugin_cache_dir = "/var/cache/providers"
disable_checkpoint = true

provider_installation {
  filesystem_mirror {
    path    = "/srv/mirror"
    include = ["example.com/*/*"]
  }
  network_mirror {
    url     = "https://mirror.example.com/providers/"
    exclude = ["example.com/*/*"]
  }
  direct {
    exclude = ["example.com/*/*", "hashicorp/*"]
  }
}
"""


def test_methods_patterns_and_cache_are_read_in_order(tmp_path: Path) -> None:
    rc = tmp_path / "terraformrc"
    rc.write_text(CONFIG)
    config = read_cli_config({"TF_CLI_CONFIG_FILE": str(rc)})
    assert config.cache_dir == Path("/var/cache/providers")
    assert config.methods is not None
    assert [(m.kind, m.location) for m in config.methods] == [
        ("filesystem_mirror", "/srv/mirror"),
        ("network_mirror", "https://mirror.example.com/providers/"),
        ("direct", ""),
    ]
    assert config.methods[0].patterns.include == ["example.com/*/*"]
    assert config.methods[2].patterns.exclude == ["example.com/*/*", "hashicorp/*"]


def test_ctl_variables_win_over_terraform_ones_and_the_file(tmp_path: Path) -> None:
    rc, ours = tmp_path / "terraformrc", tmp_path / "ctlrc"
    rc.write_text(CONFIG)
    ours.write_text('plugin_cache_dir = "/ours"\n')
    env = {"TF_CLI_CONFIG_FILE": str(rc), "CTL_CLI_CONFIG_FILE": str(ours)}
    assert read_cli_config(env).cache_dir == Path("/ours")
    assert read_cli_config(env).methods is None  # no provider_installation: the implied sources
    assert read_cli_config({**env, "TF_PLUGIN_CACHE_DIR": "/env"}).cache_dir == Path("/env")


def test_no_file_means_implied_sources(tmp_path: Path) -> None:
    config = read_cli_config({"HOME": str(tmp_path)})
    assert config.path is None and config.methods is None and config.cache_dir is None
    named = read_cli_config({"TF_CLI_CONFIG_FILE": str(tmp_path / "missing.rc")})  # as Terraform: empty
    assert named.methods is None and named.cache_dir is None


def test_an_unknown_method_is_an_error_at_its_line(tmp_path: Path) -> None:
    rc = tmp_path / "rc"
    rc.write_text('provider_installation {\n  ftp_mirror {\n  }\n}\n')
    with pytest.raises(CtlError, match='Unknown installation method "ftp_mirror"') as err:
        read_cli_config({"CTL_CLI_CONFIG_FILE": str(rc)})
    assert err.value.range is not None and err.value.range.start.line == 2
