"""imdb_bidirectional_lstm.py of the 2017 benchmark (Keras 2.0), ported to Keras 3.

Changes from the published script, each one demanded by Keras 3 or offline data:
- data: twinbench's synthetic IMDb (harness.arrays), cut to 20,000 words and 'pre'-padded to
  100 by benchdata/text.py (what imdb.load_data(num_words=...) and pad_sequences did), so the
  loading and padding lines are gone.
- `Embedding(max_features, 128, input_length=maxlen)`: Keras 3 has no `input_length`; the input
  length is given by `keras.Input(shape=(maxlen,))`.
- `LSTM(64)` is Keras 3's LSTM: its recurrent activation defaults to sigmoid (Keras 2.0:
  hard_sigmoid), which twinbench's bilstm uses too.
- `validation_data=[x_test, y_test]` became a tuple, the form Keras 3 documents.
- `'adam'` is Keras 3's Adam (lr 1e-3, eps 1e-7); prints and progress are left out.
"""

from benchmarks.ports import harness

b = harness.budget(__doc__)
import keras  # noqa: E402  (after the CPU budget: threads are fixed when TensorFlow loads)
import numpy as np  # noqa: E402
from keras.layers import LSTM, Bidirectional, Dense, Dropout, Embedding  # noqa: E402
from keras.models import Sequential  # noqa: E402

harness.keras_threads(b)
logger = harness.epoch_logger()
data, _ = harness.arrays("bilstm", b)

max_features = 20000
# cut texts after this number of words
# (among top max_features most common words)
maxlen = 100
batch_size = 32

x_train, x_test = data.x_train, data.x_test
y_train = np.array(data.y_train)
y_test = np.array(data.y_test)

model = Sequential()
model.add(keras.Input(shape=(maxlen,)))
model.add(Embedding(max_features, 128))
model.add(Bidirectional(LSTM(64)))
model.add(Dropout(0.5))
model.add(Dense(1, activation="sigmoid"))

# try using different optimizers and different optimizer configs
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])

model.fit(
    x_train,
    y_train,
    batch_size=batch_size,
    epochs=b.epochs or 4,
    verbose=0,
    validation_data=(x_test, y_test),
    callbacks=[logger],
)
harness.report(logger.times, validates=True)
