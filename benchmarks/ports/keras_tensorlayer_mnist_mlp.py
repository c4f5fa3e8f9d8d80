"""TensorLayer's MNIST MLP (its README example, tutorial_mnist_simple.py) as a Keras 3 user
writes it.

The 2017 benchmark ran no TensorLayer script and TensorLayer 1.x (tf.Session, `tl.layers`,
`tl.utils.fit`) does not run on TensorFlow 2, so this is the nearest outside code: the tutorial's
network and training, layer for layer, in the Keras a user would write today.

Changes from the tutorial, each one demanded by TensorFlow 2 or by the comparison:
- `InputLayer` / `DropoutLayer(keep=k)` / `DenseLayer(act=tf.nn.relu)` became `keras.Input` /
  `Dropout(1 - k)` / `Dense(activation="relu")`, with the tutorial's weight init spelled out
  (`truncated_normal(stddev=0.1)`, biases zero); TensorFlow 2 has no `tf.Session` to run them.
- `tl.cost.cross_entropy` on the logits became a softmax output with
  `sparse_categorical_crossentropy`, the usual Keras spelling of the same loss.
- `tf.train.AdamOptimizer(0.0001, beta1=0.9, beta2=0.999, epsilon=1e-08)` became
  `keras.optimizers.Adam` with the same four values (Keras 3's default epsilon is 1e-7).
- `tl.utils.fit(..., batch_size=500, n_epoch=500, print_freq=5)` became `model.fit` with
  batch 500, training on all 60,000 images and validating on the test set after every epoch,
  the work pytorch/examples' loop does (benchmarks/outside.yaml gives twinbench the same).
- data: twinbench's synthetic MNIST (harness.arrays), flat 784-vectors in [0, 1]; budget and
  epoch clock from the harness. Printing, `eval_train` passes and the final test are left out.
"""

from benchmarks.ports import harness

b = harness.budget(__doc__)
import keras  # noqa: E402  (after the CPU budget: threads are fixed when TensorFlow loads)
from keras.layers import Dense, Dropout  # noqa: E402
from keras.models import Sequential  # noqa: E402

harness.keras_threads(b)
logger = harness.epoch_logger()
data, _ = harness.arrays("tl_mlp", b)

batch_size = 500
n_epoch = b.epochs or 500


def w_init():
    return keras.initializers.TruncatedNormal(stddev=0.1)


model = Sequential()
model.add(keras.Input(shape=(784,)))
model.add(Dropout(0.2))  # DropoutLayer(keep=0.8, name='drop1')
model.add(Dense(800, activation="relu", kernel_initializer=w_init()))
model.add(Dropout(0.5))  # DropoutLayer(keep=0.5, name='drop2')
model.add(Dense(800, activation="relu", kernel_initializer=w_init()))
model.add(Dropout(0.5))  # DropoutLayer(keep=0.5, name='drop3')
model.add(Dense(10, activation="softmax", kernel_initializer=w_init()))

optimizer = keras.optimizers.Adam(learning_rate=0.0001, beta_1=0.9, beta_2=0.999, epsilon=1e-08)
model.compile(loss="sparse_categorical_crossentropy", optimizer=optimizer, metrics=["accuracy"])

model.fit(
    data.x_train,
    data.y_train,
    batch_size=batch_size,
    epochs=n_epoch,
    verbose=0,
    validation_data=(data.x_test, data.y_test),
    callbacks=[logger],
)
harness.report(logger.times, validates=True)
