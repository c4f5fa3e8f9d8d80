"""imdb_fasttext.py of the 2017 benchmark (Keras 2.0), bigram features, ported to Keras 3.

Changes from the published script, each one demanded by Keras 3 or offline data:
- data: twinbench's synthetic IMDb (harness.arrays), preprocessed by benchdata/text.py, numpy
  code doing what the script's create_ngram_set / add_ngram / pad_sequences do (bigrams of the
  training set numbered from max_features + 1, 'pre' padding and truncation to 400). So the
  loading, n-gram and padding lines are gone, and max_features is the data's (1 + largest id).
- `Embedding(max_features, embedding_dims, input_length=maxlen)`: Keras 3 has no
  `input_length`; the input length is given by `keras.Input(shape=(maxlen,))`.
- `optimizer='adam'` is Keras 3's Adam (lr 1e-3, eps 1e-7), which twinbench's fasttext uses.
- prints and verbose=1 progress are left out.
"""

from benchmarks.ports import harness

b = harness.budget(__doc__)
import keras  # noqa: E402  (after the CPU budget: threads are fixed when TensorFlow loads)
from keras.layers import Dense, Embedding, GlobalAveragePooling1D  # noqa: E402
from keras.models import Sequential  # noqa: E402

harness.keras_threads(b)
logger = harness.epoch_logger()
data, cfg = harness.arrays("fasttext", b)

max_features = cfg["arch"]["max_features"]
maxlen = 400
batch_size = 32
embedding_dims = 50
epochs = b.epochs or 5

x_train, y_train, x_test, y_test = data.x_train, data.y_train, data.x_test, data.y_test

model = Sequential()
model.add(keras.Input(shape=(maxlen,)))

# we start off with an efficient embedding layer which maps
# our vocab indices into embedding_dims dimensions
model.add(Embedding(max_features, embedding_dims))

# we add a GlobalAveragePooling1D, which will average the embeddings
# of all words in the document
model.add(GlobalAveragePooling1D())

# We project onto a single unit output layer, and squash it with a sigmoid:
model.add(Dense(1, activation="sigmoid"))

model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])

model.fit(
    x_train,
    y_train,
    batch_size=batch_size,
    epochs=epochs,
    verbose=0,
    validation_data=(x_test, y_test),
    callbacks=[logger],
)
harness.report(logger.times, validates=True)
