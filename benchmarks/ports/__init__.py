"""Outside code: the 2017 benchmark's Keras scripts and pytorch/examples-style loops, ported.

Each `keras_*.py` is one script of minimaxir/deep-learning-cpu-gpu-benchmark (`test_files/`,
July 2017) changed only where Keras 3 or offline data demand; every change is listed at its top.
`torch_examples.py` is the training loop of pytorch/examples `mnist/main.py` around the same
networks. The transformers' outside code comes from where their users start, its changes listed
the same way: `keras_imdb_transformer.py` and `keras_gpt.py` from keras.io's examples,
`nanogpt_train.py` from karpathy/nanoGPT's train.py. `harness.py` is what the 2017 docker run
gave them from outside: the CPU budget, the data (twinbench's synthetic arrays, so both sides
train on identical bytes) and the epoch clock. `benchmarks/outside.py` runs them against
twinbench.
"""
