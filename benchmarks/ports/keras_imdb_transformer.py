"""keras.io's "Text classification with Transformer" (keras-team/keras-io,
examples/nlp/text_classification_with_transformer.py, Keras 3 version of 2024/01/18).

The example is written for Keras 3 already, so its model, compile and fit are as published: a
TransformerBlock layer (MultiHeadAttention with key_dim = embed_dim, post-norm, LayerNorm eps
1e-6, a relu feed-forward in a Sequential), a TokenAndPositionEmbedding layer (the positions
looked up as `pos_emb(arange(maxlen))`), mean pooling, Dropout, Dense 20, Dropout, Dense 2
softmax, `optimizer="adam"`, sparse categorical cross-entropy, batch 32, validation on the
test reviews after each epoch.
Changes from the published script, each one demanded by offline data or the comparison:
- data: twinbench's synthetic IMDb (harness.arrays), preprocessed by benchdata/imdb.py as
  `imdb.load_data(num_words=20000)` + `pad_sequences(maxlen=200)` would ('pre' padding and
  truncation), so the download and padding lines are gone.
- the sizes (vocab_size, maxlen, embed_dim, num_heads, ff_dim, the Dense 20, the dropout rate,
  batch size, epochs) are read from conf/model/imdb_transformer.yaml, which holds the
  example's values: one source, so the two sides cannot drift apart.
- the epoch clock is the harness's EpochStatsLogger; fit's verbose=1 progress bar and the
  prints are left out (verbose=0, as twinbench's fit).
"""

from benchmarks.ports import harness

b = harness.budget(__doc__)
import keras  # noqa: E402  (after the CPU budget: threads are fixed when TensorFlow loads)
from keras import layers, ops  # noqa: E402

harness.keras_threads(b)
logger = harness.epoch_logger()
data, cfg = harness.arrays("imdb_transformer", b)
arch = cfg["arch"]


class TransformerBlock(layers.Layer):
    """Self-attention and a feed-forward, each followed by dropout, a residual and LayerNorm."""

    def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1):
        super().__init__()
        self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.ffn = keras.Sequential(
            [layers.Dense(ff_dim, activation="relu"), layers.Dense(embed_dim)]
        )
        self.layernorm1 = layers.LayerNormalization(epsilon=arch["ln_epsilon"])
        self.layernorm2 = layers.LayerNormalization(epsilon=arch["ln_epsilon"])
        self.dropout1 = layers.Dropout(rate)
        self.dropout2 = layers.Dropout(rate)

    def call(self, inputs):
        attended = self.dropout1(self.att(inputs, inputs))
        out1 = self.layernorm1(inputs + attended)
        return self.layernorm2(out1 + self.dropout2(self.ffn(out1)))


class TokenAndPositionEmbedding(layers.Layer):
    """A token table and a position table, looked up and added."""

    def __init__(self, maxlen, vocab_size, embed_dim):
        super().__init__()
        self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
        self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

    def call(self, x):
        positions = self.pos_emb(ops.arange(start=0, stop=ops.shape(x)[-1], step=1))
        return self.token_emb(x) + positions


vocab_size = arch["max_features"]
maxlen = arch["maxlen"]
embed_dim = arch["width"]
num_heads = arch["heads"]
ff_dim = arch["ff_dim"]
rate = arch["dropout"]

inputs = layers.Input(shape=(maxlen,))
x = TokenAndPositionEmbedding(maxlen, vocab_size, embed_dim)(inputs)
x = TransformerBlock(embed_dim, num_heads, ff_dim, rate)(x)
x = layers.GlobalAveragePooling1D()(x)
x = layers.Dropout(rate)(x)
x = layers.Dense(arch["hidden"], activation="relu")(x)
x = layers.Dropout(rate)(x)
outputs = layers.Dense(arch["classes"], activation="softmax")(x)
model = keras.Model(inputs=inputs, outputs=outputs)

model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(
    data.x_train,
    data.y_train,
    batch_size=cfg["batch_size"],
    epochs=b.epochs or cfg["epochs"],
    validation_data=(data.x_test, data.y_test),
    verbose=0,
    callbacks=[logger],
)
harness.report(logger.times, validates=True)
