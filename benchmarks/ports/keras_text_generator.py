"""text_generator_keras.py of the 2017 benchmark (Keras 2.0), ported to Keras 3.

Changes from the published script, each one demanded by Keras 3 or offline data:
- data: twinbench's synthetic Nietzsche windows (harness.arrays): 40 character ids per window at
  step 3 (benchdata/nietzsche.py); y is one-hot bool from the next-character ids, as the
  script's loop built it. get_file and the loops are gone; its own EpochStatsLogger is the
  harness's (it logged main_out_loss, which is not timed).
- `Embedding(len(chars), embedding_dim, input_length=maxlen)`: no `input_length` in Keras 3
  (`Input(shape=(maxlen,))` already gives it); `LSTM(128, implementation=consume_less)`: no
  `implementation` in Keras 3; its recurrent activation defaults to sigmoid (Keras 2.0:
  hard_sigmoid), as twinbench's textgen.
- `Adam(lr=lr, decay=lr_decay)`: Keras 3 has no `decay`; Keras 2's per-step
  lr / (1 + decay * t) is `InverseTimeDecay(lr, decay_steps=1, decay_rate=lr_decay)`.
- `loss='categorical_crossentropy'` became one per output: Keras 3 refuses one loss with two
  `loss_weights` ("loss_weights must match the number of losses").
- imports of unused names (concatenate, plot_model, h5py, ...) and the text generation after
  training (outside every epoch) are left out. No validation, as published.
"""

from benchmarks.ports import harness

b = harness.budget(__doc__)
import keras  # noqa: E402  (after the CPU budget: threads are fixed when TensorFlow loads)
import numpy as np  # noqa: E402
from keras.layers import LSTM, Activation, BatchNormalization, Dense, Embedding, Input  # noqa: E402
from keras.models import Model  # noqa: E402
from keras.optimizers import Adam  # noqa: E402

harness.keras_threads(b)
logger = harness.epoch_logger()
data, cfg = harness.arrays("textgen", b)

embedding_dim = 300
batch_size = 128
lr = 0.001
lr_decay = 1e-4
maxlen = 40
n_chars = cfg["arch"]["chars"]

X = data.x_train
y = np.zeros((len(X), n_chars), dtype=bool)
y[np.arange(len(X)), data.y_train] = 1

main_input = Input(shape=(maxlen,))
embedding_layer = Embedding(n_chars, embedding_dim)

embedded = embedding_layer(main_input)

# RNN Layer
rnn = LSTM(128)(embedded)

aux_output = Dense(n_chars)(rnn)
aux_output = Activation("softmax", name="aux_out")(aux_output)

# Hidden Layers
hidden_1 = Dense(512, use_bias=False)(rnn)
hidden_1 = BatchNormalization()(hidden_1)
hidden_1 = Activation("relu")(hidden_1)

hidden_2 = Dense(256, use_bias=False)(hidden_1)
hidden_2 = BatchNormalization()(hidden_2)
hidden_2 = Activation("relu")(hidden_2)

main_output = Dense(n_chars)(hidden_2)
main_output = Activation("softmax", name="main_out")(main_output)

model = Model(inputs=main_input, outputs=[main_output, aux_output])

schedule = keras.optimizers.schedules.InverseTimeDecay(lr, decay_steps=1, decay_rate=lr_decay)
optimizer = Adam(learning_rate=schedule)
model.compile(
    loss=["categorical_crossentropy", "categorical_crossentropy"],
    optimizer=optimizer,
    loss_weights=[1.0, 0.2],
)

model.fit(X, [y, y], batch_size=batch_size, epochs=b.epochs or 10, verbose=0, callbacks=[logger])
harness.report(logger.times, validates=False)
