"""Character GPT (nanoGPT's model.py, scaled down for two CPU cores): a decoder-only transformer.

Token and learned position embeddings, dropout, `layers` pre-norm blocks (LayerNorm, causal
multi-head self-attention, residual; LayerNorm, Dense 4d, exact GELU, Dense d, residual), a
final LayerNorm and a head tied to the token embedding (the same matrix, counted once). Every
position predicts the next character (benchdata/nietzsche.py encoding 'next_ids').

Sizes (conf/model/gpt.yaml): 4 layers, 4 heads, width 128, context 64, batch 16; parameters
12 * layers * width^2 + 13 * layers * width + (chars + context + 2) * width = 793,088 + 128 *
(chars + 66): 808,832 for the 57 characters of lowercased nietzsche.txt. nanoGPT's
shakespeare_char (6 x 384, context 256, batch 64) takes seconds a step on two cores; the
measured steps of these sizes are in docs/findings/2026-12-01-transformer-workloads.md.

What follows nanoGPT: LayerNorm eps 1e-5 with a bias, exact (erf) GELU, scale 1/sqrt(head_dim),
a causal mask, dropout on the attention probabilities and after each residual branch, the tied
head without bias, AdamW decaying matrices only, warm-up then cosine, clipping at global norm 1.
What does not: the initial weights are Keras' defaults in both halves (glorot-uniform kernels,
uniform(-0.05, 0.05) embeddings, zero biases) instead of nanoGPT's N(0, 0.02), since parity
transfers weights and the torch half starts from Keras' distributions as every workload here;
and q, k, v are three projections (Keras' MultiHeadAttention) where nanoGPT fuses them in one
(the same products, split in three).
"""

from __future__ import annotations

from models import transformer

OUTPUT = "softmax"
# Keras' attention takes its causal mask per call (torch's module keeps it): parity's attention
# dropout probe (frameworks/keras/stochastic.py) masks as the model does.
CAUSAL_ATTENTION = True


def _layers(layers: int) -> dict[str, str]:
    names = {"wte": "embedding", "wpe": "embedding"}
    for i in range(layers):
        names |= {
            f"h{i}_ln_1": "layernorm",
            f"h{i}_attn": "mha",
            f"h{i}_ln_2": "layernorm",
            f"h{i}_fc": "dense",
            f"h{i}_proj": "dense",
        }
    return names | {"ln_f": "layernorm"}


LAYERS = _layers(4)  # conf/model/gpt.yaml arch.layers: weight transfer follows these names
# Layers without weights of their own that the per-layer profile names apart (frameworks/
# profiling.py): the GELU between fc and proj (torch's module, Keras' named Activation), and the
# head, torch's tied lm_head or Keras' TiedHead (auto-named tied_head).
PROFILE_LAYERS = {"lm_head": "head", "tied_head": "head"} | {
    f"h{i}_gelu": "activation" for i in range(4)
}
LAYER_GROUPS = transformer.layer_groups(LAYERS | PROFILE_LAYERS)
# Layers whose outputs are the same tensor in both halves, in depth order: parity compares them
# one by one on the probe batch (twinbench/parity/layers.py), so a change in one block shows in
# that block. Every named layer of a block, its GELU included, and the final LayerNorm.
BLOCK_LAYERS = ("ln_1", "attn", "ln_2", "fc", "gelu", "proj")
PARITY_LAYERS = [f"h{i}_{n}" for i in range(4) for n in BLOCK_LAYERS] + ["ln_f"]


def flop_products(maxlen: int, chars: int, width: int, heads: int, layers: int, **_) -> list:
    """Per sample matrix products (models/flops.py rules): the embeddings are lookups; every
    projection's input is trained, so every input gradient counts; the tied head is a Dense."""
    from models import flops

    t, hd = maxlen, width // heads
    products = []
    for i in range(layers):
        for p in ("query", "key", "value"):
            products += flops.token_dense_layer(f"h{i}_attn.{p}", t, width, width)
        products += flops.attention_layer(f"h{i}_attn", t, heads, hd)
        products += flops.token_dense_layer(f"h{i}_attn.attention_output", t, width, width)
        products += flops.token_dense_layer(f"h{i}_fc", t, width, 4 * width)
        products += flops.token_dense_layer(f"h{i}_proj", t, 4 * width, width)
    return products + flops.token_dense_layer("lm_head", t, width, chars)


def forward_flops(**arch) -> int:
    """Per sample, forward (models/flops.py rules)."""
    from models import flops

    return flops.forward(flop_products(**arch))


def torch_model(
    maxlen: int,
    chars: int,
    width: int,
    heads: int,
    layers: int,
    dropout: float,
    ln_epsilon: float,
    gelu_approximate: bool,
    tie_head: bool,
    attention: str,
):
    from torch import nn

    from models import torch_transformer
    from models.torch_init import keras_init_

    transformer.check(width, heads, attention)

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(chars, width)
            self.wpe = nn.Embedding(maxlen, width)
            self.drop = nn.Dropout(dropout)
            for i in range(layers):
                setattr(self, f"h{i}_ln_1", nn.LayerNorm(width, eps=ln_epsilon))
                setattr(
                    self,
                    f"h{i}_attn",
                    torch_transformer.SelfAttention(
                        width, heads, width // heads, dropout, causal=True, kernel=attention
                    ),
                )
                setattr(self, f"h{i}_drop_1", nn.Dropout(dropout))
                setattr(self, f"h{i}_ln_2", nn.LayerNorm(width, eps=ln_epsilon))
                setattr(self, f"h{i}_fc", nn.Linear(width, 4 * width))
                setattr(self, f"h{i}_gelu", nn.GELU("tanh" if gelu_approximate else "none"))
                setattr(self, f"h{i}_proj", nn.Linear(4 * width, width))
                setattr(self, f"h{i}_drop_2", nn.Dropout(dropout))
            self.ln_f = nn.LayerNorm(width, eps=ln_epsilon)
            # logits: the softmax is in the loss
            self.lm_head = nn.Linear(width, chars, bias=False)

        def forward(self, x):
            b = self.wpe.weight[: x.shape[1]]
            h = self.drop(self.wte(x) + b)
            for i in range(layers):
                blk = lambda name, i=i: getattr(self, f"h{i}_{name}")  # noqa: E731
                h = h + blk("drop_1")(blk("attn")(blk("ln_1")(h)))
                mlp = blk("proj")(blk("gelu")(blk("fc")(blk("ln_2")(h))))
                h = h + blk("drop_2")(mlp)
            return self.lm_head(self.ln_f(h))

    # Keras' MultiHeadAttention kernels are (width, heads, hd) einsums, but Keras 3 takes their
    # glorot fans from the einsum's input and output axes (width in, heads * hd out): the 2-D
    # Linear's fans keras_init_ uses. Parity's initial-weight check holds this.
    model = keras_init_(GPT())
    if tie_head:  # one matrix: the head reads the token embedding (after init, so it is wte's)
        model.lm_head.weight = model.wte.weight
    return model


def keras_model(
    maxlen: int,
    chars: int,
    width: int,
    heads: int,
    layers: int,
    dropout: float,
    ln_epsilon: float,
    gelu_approximate: bool,
    tie_head: bool,
    attention: str,
):
    import keras
    from keras import layers as kl

    from models import keras_transformer

    transformer.check(width, heads, attention)
    ids = keras.Input(shape=(maxlen,), dtype="int32")
    wte = kl.Embedding(chars, width, embeddings_initializer="uniform", name="wte")
    h = keras_transformer.PositionEmbedding(maxlen, width, name="wpe")(wte(ids))
    h = kl.Dropout(dropout)(h)
    for i in range(layers):
        a = kl.LayerNormalization(epsilon=ln_epsilon, name=f"h{i}_ln_1")(h)
        a = keras_transformer.attention_layer(
            heads, width // heads, dropout, attention, name=f"h{i}_attn"
        )(a, a, use_causal_mask=True)
        h = kl.Add()([h, kl.Dropout(dropout)(a)])
        m = kl.LayerNormalization(epsilon=ln_epsilon, name=f"h{i}_ln_2")(h)
        m = kl.Dense(4 * width, name=f"h{i}_fc")(m)
        m = kl.Activation(keras_transformer.gelu(gelu_approximate), name=f"h{i}_gelu")(m)
        m = kl.Dense(width, name=f"h{i}_proj")(m)
        h = kl.Add()([h, kl.Dropout(dropout)(m)])
    h = kl.LayerNormalization(epsilon=ln_epsilon, name="ln_f")(h)
    if tie_head:
        logits = keras_transformer.TiedHead(wte)(h)
    else:
        logits = kl.Dense(chars, use_bias=False, name="lm_head")(h)
    return keras.Model(ids, kl.Activation("softmax")(logits), name="gpt")


def check_arch(width: int, heads: int, attention: str, **_) -> None:
    """Refused before a run (twinbench/config/model_values.py): see models/transformer.py."""
    transformer.check(width, heads, attention)
