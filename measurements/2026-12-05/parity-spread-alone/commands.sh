# 2026-12-05, AMD EPYC family 25 model 17 (Zen 5: AVX-512, avx512_bf16), 2 vCPU, nothing else
# running: the unmutated spread with each attention layer also called alone (`<layer>@alone`,
# frameworks/layer_parity.py), 20 weight draws, every backend against Keras on TensorFlow.
python -m twinbench.parity.spread imdb_transformer gpt --seeds 20 --json spread-20-seeds.json
# The planted mutations (imdb's attention scale on either half among them), Keras on torch
# beside native torch:
python -m tests.layer_parity_checks
