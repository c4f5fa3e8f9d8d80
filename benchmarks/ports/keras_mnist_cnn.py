"""mnist_cnn.py of the 2017 benchmark (Keras 2.0), ported to Keras 3.

Changes from the published script, each one demanded by Keras 3 or offline data:
- data: twinbench's synthetic MNIST (harness.arrays), already NHWC [n, 28, 28, 1] float32 in
  [0, 1] (channels_last, Keras' default then and now), so the reshape / astype / `/= 255` lines
  and the `image_data_format` branch are gone; budget and epoch clock from the harness.
- `input_shape=` on the first Conv2D became `keras.Input(shape=input_shape)` (Keras 3).
- `Adadelta()`: Keras 3 changed its default learning rate from 1.0 to 0.001, so the 2017 value
  is spelled out, `Adadelta(learning_rate=1.0)` (rho 0.95 and eps 1e-7 are Keras 3's defaults).
- prints, verbose=1 progress and the final evaluate are left out (not part of an epoch).
"""

from benchmarks.ports import harness

b = harness.budget(__doc__)
import keras  # noqa: E402  (after the CPU budget: threads are fixed when TensorFlow loads)
from keras.layers import Conv2D, Dense, Dropout, Flatten, MaxPooling2D  # noqa: E402
from keras.models import Sequential  # noqa: E402

harness.keras_threads(b)
logger = harness.epoch_logger()
data, _ = harness.arrays("cnn", b)

batch_size = 128
num_classes = 10
epochs = b.epochs or 12

# input image dimensions
img_rows, img_cols = 28, 28
input_shape = (img_rows, img_cols, 1)

x_train, y_train, x_test, y_test = data.x_train, data.y_train, data.x_test, data.y_test

# convert class vectors to binary class matrices
y_train = keras.utils.to_categorical(y_train, num_classes)
y_test = keras.utils.to_categorical(y_test, num_classes)

model = Sequential()
model.add(keras.Input(shape=input_shape))
model.add(Conv2D(32, kernel_size=(3, 3), activation="relu"))
model.add(Conv2D(64, (3, 3), activation="relu"))
model.add(MaxPooling2D(pool_size=(2, 2)))
model.add(Dropout(0.25))
model.add(Flatten())
model.add(Dense(128, activation="relu"))
model.add(Dropout(0.5))
model.add(Dense(num_classes, activation="softmax"))

model.compile(
    loss=keras.losses.categorical_crossentropy,
    optimizer=keras.optimizers.Adadelta(learning_rate=1.0),
    metrics=["accuracy"],
)

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
