"""mnist_mlp.py of the 2017 benchmark (Keras 2.0), ported to Keras 3.

Changes from the published script, each one demanded by Keras 3 or offline data:
- data: twinbench's synthetic MNIST (harness.arrays), already reshaped to 784 and scaled to
  [0, 1] as float32, so the reshape / astype / `/= 255` lines are gone; the CPU budget and the
  epoch clock come from the harness (the 2017 docker image and CustomCallback.py gave them).
- `input_shape=(784,)` on the first Dense became `keras.Input(shape=(784,))` (Keras 3).
- `RMSprop()` keeps Keras 3's defaults (lr 1e-3, rho 0.9, eps 1e-7), which twinbench's mlp uses.
- `model.summary()`, the prints, verbose=1 progress and the final evaluate are left out: they
  are not part of an epoch and would only fill the log.
"""

from benchmarks.ports import harness

b = harness.budget(__doc__)
import keras  # noqa: E402  (after the CPU budget: threads are fixed when TensorFlow loads)
from keras.layers import Dense, Dropout  # noqa: E402
from keras.models import Sequential  # noqa: E402
from keras.optimizers import RMSprop  # noqa: E402

harness.keras_threads(b)
logger = harness.epoch_logger()
data, _ = harness.arrays("mlp", b)

batch_size = 128
num_classes = 10
epochs = b.epochs or 20

x_train, y_train, x_test, y_test = data.x_train, data.y_train, data.x_test, data.y_test

# convert class vectors to binary class matrices
y_train = keras.utils.to_categorical(y_train, num_classes)
y_test = keras.utils.to_categorical(y_test, num_classes)

model = Sequential()
model.add(keras.Input(shape=(784,)))
model.add(Dense(512, activation="relu"))
model.add(Dropout(0.2))
model.add(Dense(512, activation="relu"))
model.add(Dropout(0.2))
model.add(Dense(10, activation="softmax"))

model.compile(loss="categorical_crossentropy", optimizer=RMSprop(), metrics=["accuracy"])

history = model.fit(
    x_train,
    y_train,
    batch_size=batch_size,
    epochs=epochs,
    verbose=0,
    validation_data=(x_test, y_test),
    callbacks=[logger],
)
harness.report(logger.times, validates=True)
