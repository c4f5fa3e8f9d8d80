"""lstm_text_generation.py of the 2017 benchmark (Keras 2.0), ported to Keras 3.

Changes from the published script, each one demanded by Keras 3 or offline data:
- data: twinbench's synthetic Nietzsche windows (harness.arrays): the same 40-character windows
  at step 3 over the lowercased text, one-hot as bool, built by benchdata/nietzsche.py; y is
  one-hot bool built from the next-character ids as the script's loop built it. So get_file, the
  window loop and the vectorisation loop are gone.
- `LSTM(128, input_shape=..., implementation=2)`: Keras 3 has no `implementation` or
  `input_shape`; `keras.Input(shape=(maxlen, len(chars)))` gives the shape. Its recurrent
  activation defaults to sigmoid (Keras 2.0: hard_sigmoid), as twinbench's charlstm.
- `RMSprop(lr=0.01)` became `RMSprop(learning_rate=0.01)`.
- the text generation after training (400 `predict` calls, outside every epoch) is left out,
  and the one-iteration loop around fit is unrolled. No validation, as published.
"""

from benchmarks.ports import harness

b = harness.budget(__doc__)
import keras  # noqa: E402  (after the CPU budget: threads are fixed when TensorFlow loads)
import numpy as np  # noqa: E402
from keras.layers import LSTM, Activation, Dense  # noqa: E402
from keras.models import Sequential  # noqa: E402
from keras.optimizers import RMSprop  # noqa: E402

harness.keras_threads(b)
logger = harness.epoch_logger()
data, cfg = harness.arrays("charlstm", b)

maxlen = 40
n_chars = cfg["arch"]["chars"]
X = data.x_train
y = np.zeros((len(X), n_chars), dtype=bool)
y[np.arange(len(X)), data.y_train] = 1

# build the model: a single LSTM
model = Sequential()
model.add(keras.Input(shape=(maxlen, n_chars)))
model.add(LSTM(128))
model.add(Dense(n_chars))
model.add(Activation("softmax"))

optimizer = RMSprop(learning_rate=0.01)
model.compile(loss="categorical_crossentropy", optimizer=optimizer)

model.fit(X, y, batch_size=128, epochs=b.epochs or 10, verbose=0, callbacks=[logger])
harness.report(logger.times, validates=False)
