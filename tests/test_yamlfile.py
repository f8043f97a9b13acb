"""automedbench.yamlfile: libyaml's parser where PyYAML has it, the same objects and the same
readable errors as `yaml.safe_load` (docs/architecture.md, "Layers")."""
from pathlib import Path

import pytest
import yaml

from automedbench import yamlfile

SRC = Path(yamlfile.__file__).parent


def test_every_shipped_yaml_file_reads_as_pyyaml_reads_it() -> None:
    files = sorted(SRC.rglob("*.yaml"))
    assert len(files) > 30, files   # tasks, rubric, error codes, tiers, bands, calibration labels
    for path in files:
        text = path.read_text()
        assert yamlfile.safe_load(text) == yaml.safe_load(text), path


def test_libyaml_is_used_when_pyyaml_has_it() -> None:
    assert yaml.__with_libyaml__, "PyYAML without libyaml: the slow parser is in use"
    assert yamlfile._FAST_LOADER is yaml.CSafeLoader


@pytest.mark.parametrize("text", ["a: [1, 2\nb: 3\n", "a:\n\t- 1\n", "key: value: other\n"])
def test_malformed_text_raises_the_python_parsers_message_with_its_caret(text: str) -> None:
    with pytest.raises(yaml.YAMLError) as raised:
        yamlfile.safe_load(text)
    with pytest.raises(yaml.YAMLError) as expected:
        yaml.safe_load(text)
    assert str(raised.value) == str(expected.value) and "^" in str(raised.value)


def test_only_the_safe_subset_is_read() -> None:
    with pytest.raises(yaml.YAMLError):
        yamlfile.safe_load("!!python/object/apply:os.system ['true']\n")
