"""keras.io's "Text generation with a miniature GPT" (keras-team/keras-io,
examples/generative/text_generation_with_miniature_gpt.py), rebuilt as twinbench's gpt.

Kept from the example: a TransformerBlock layer around Keras' MultiHeadAttention given an
explicit causal mask that the block builds per call (`causal_attention_mask`, tiled over the
batch), a feed-forward in a Sequential, two Dropouts; a TokenAndPositionEmbedding layer whose
positions are looked up as `pos_emb(arange(maxlen))`; a functional model on int32 ids,
logits out, `SparseCategoricalCrossentropy(from_logits=True)`, and `model.fit` on the whole
training set.
Changes from the published script, each one demanded by twinbench's gpt (conf/model/gpt.yaml,
models/gpt.py: nanoGPT's architecture and recipe) or by offline data:
- Keras 3: the tf.* calls are keras.ops (`ops.arange`, `ops.tile`, ...), the imports
  `keras` / `keras.layers`, and `super().__init__()` takes the layer's kwargs.
- sizes: 4 blocks (the example has one), width 128, 4 heads of key_dim 32 (width / heads; the
  example passes key_dim = embed_dim), context 64 (its maxlen 80), the data's 57 characters
  (its 20,000 words), batch 16 (its 128), all read from the conf.
- block: pre-norm, x + Dropout(MHA(LN(x))) then x + Dropout(FFN(LN(x))), as nanoGPT (the
  example normalises after each residual); LayerNorm eps 1e-5 (its 1e-6); the feed-forward is
  Dense(4 * width, exact GELU), Dense(width) (its Dense(256, relu)); dropout 0.2 (its 0.1), also
  on the attention probabilities (MultiHeadAttention's `dropout`) and on the summed embeddings.
- a final LayerNorm, and a head tied to the token table: TokenAndPositionEmbedding called a
  second time with `reverse=True` returns x E^T (keras_hub's ReversibleEmbedding does the
  same), where the example has Dense(vocab_size) with a bias.
- one output: the example also returns the block's states with a `None` loss, which nothing
  reads in training; twinbench's gpt has the one.
- optimizer: `"adam"` became AdamW as twinbench's gpt builds it: weight decay 0.1 on matrices
  only (`exclude_from_weight_decay` names biases, LayerNorm gamma/beta and the embedding
  tables), betas (0.9, 0.99), eps 1e-8, `global_clipnorm=1.0`, and Keras' CosineDecay with its
  linear warm-up from lr / warmup_steps to lr, then a half cosine to min_lr (twinbench's
  schedule starts each warm-up step one step later: lr * (t + 1) / warmup; same work).
- data: twinbench's synthetic Nietzsche blocks (harness.arrays: 64 character ids, y the next
  characters), so the aclImdb download, TextVectorization and the tf.data pipeline are gone;
  fit shuffles the arrays each epoch.
- the TextGenerator callback (40 words generated after every epoch, inside fit's epoch) is left
  out: twinbench samples after training, timed apart; fit's verbose=2 lines too (verbose=0).
"""

from benchmarks.ports import harness

b = harness.budget(__doc__)
import keras  # noqa: E402  (after the CPU budget: threads are fixed when TensorFlow loads)
from keras import layers, ops  # noqa: E402

harness.keras_threads(b)
logger = harness.epoch_logger()
data, cfg = harness.arrays("gpt", b)
arch, opt = cfg["arch"], cfg["optimizer"]
if arch["gelu_approximate"] or not arch["tie_head"]:
    raise SystemExit("this port builds gpt's exact GELU and tied head (conf/model/gpt.yaml)")


def causal_attention_mask(batch_size, n_dest, n_src, dtype):
    """True where a position may attend: itself and those before it, one (n_dest, n_src) mask
    per example of the batch."""
    i = ops.arange(n_dest)[:, None]
    j = ops.arange(n_src)
    mask = ops.cast(i >= j - n_src + n_dest, dtype)
    return ops.tile(ops.reshape(mask, (1, n_dest, n_src)), (batch_size, 1, 1))


class TransformerBlock(layers.Layer):
    """Pre-norm: causal self-attention and a GELU feed-forward, each added back after dropout."""

    def __init__(self, embed_dim, num_heads, ff_dim, rate, **kwargs):
        super().__init__(**kwargs)
        self.att = layers.MultiHeadAttention(num_heads, embed_dim // num_heads, dropout=rate)
        self.ffn = keras.Sequential(
            [layers.Dense(ff_dim, activation="gelu"), layers.Dense(embed_dim)]
        )  # Keras 3's "gelu" is the exact (erf) form, nanoGPT's nn.GELU()
        self.layernorm1 = layers.LayerNormalization(epsilon=arch["ln_epsilon"])
        self.layernorm2 = layers.LayerNormalization(epsilon=arch["ln_epsilon"])
        self.dropout1 = layers.Dropout(rate)
        self.dropout2 = layers.Dropout(rate)

    def call(self, inputs):
        batch_size, seq_len = ops.shape(inputs)[0], ops.shape(inputs)[1]
        causal_mask = causal_attention_mask(batch_size, seq_len, seq_len, "bool")
        normed = self.layernorm1(inputs)
        attended = self.att(normed, normed, attention_mask=causal_mask)
        x = inputs + self.dropout1(attended)
        return x + self.dropout2(self.ffn(self.layernorm2(x)))


class TokenAndPositionEmbedding(layers.Layer):
    """Token plus position lookups; with reverse=True, logits against the token table."""

    def __init__(self, maxlen, vocab_size, embed_dim, **kwargs):
        super().__init__(**kwargs)
        self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
        self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

    def call(self, x, reverse=False):
        if reverse:  # the tied head: the same matrix, trained once
            return ops.matmul(x, ops.transpose(self.token_emb.embeddings))
        positions = self.pos_emb(ops.arange(start=0, stop=ops.shape(x)[-1], step=1))
        return self.token_emb(x) + positions


vocab_size = arch["chars"]
maxlen = arch["maxlen"]
embed_dim = arch["width"]
num_heads = arch["heads"]
feed_forward_dim = 4 * embed_dim  # nanoGPT's MLP width
rate = arch["dropout"]


def create_model():
    inputs = layers.Input(shape=(maxlen,), dtype="int32")
    embedding_layer = TokenAndPositionEmbedding(maxlen, vocab_size, embed_dim)
    x = layers.Dropout(rate)(embedding_layer(inputs))
    for _ in range(arch["layers"]):
        x = TransformerBlock(embed_dim, num_heads, feed_forward_dim, rate)(x)
    x = layers.LayerNormalization(epsilon=arch["ln_epsilon"])(x)
    outputs = embedding_layer(x, reverse=True)
    model = keras.Model(inputs=inputs, outputs=outputs)
    schedule = keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=opt["lr"] / opt["warmup_steps"],
        decay_steps=opt["cosine_steps"],
        alpha=opt["min_lr"] / opt["lr"],
        warmup_target=opt["lr"],
        warmup_steps=opt["warmup_steps"],
    )
    optimizer = keras.optimizers.AdamW(
        learning_rate=schedule,
        weight_decay=opt["weight_decay"],
        beta_1=opt["beta_1"],
        beta_2=opt["beta_2"],
        epsilon=opt["eps"],
        global_clipnorm=opt["clip_global_norm"],
    )
    # matrices decay; biases, LayerNorm scales and offsets and the embedding tables do not
    optimizer.exclude_from_weight_decay(var_names=["bias", "gamma", "beta", "embeddings"])
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(optimizer, loss=loss_fn)
    return model


model = create_model()
model.fit(
    data.x_train,
    data.y_train,
    batch_size=cfg["batch_size"],
    epochs=b.epochs or cfg["epochs"],
    verbose=0,
    callbacks=[logger],
)
harness.report(logger.times, validates=False)
