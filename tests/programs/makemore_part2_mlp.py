# makemore, part 2 (MLP): the code cells of karpathy's nn-zero-to-hero lecture notebook, in
# jupytext's percent format (each "# %% cell N" line starts the notebook's code cell N).
# Source: https://github.com/karpathy/nn-zero-to-hero/blob/73c3fcc741f0ec104ca850b1fb0df90e7e8d4cde/lectures/makemore/makemore_part2_mlp.ipynb
# Licence: MIT, Copyright (c) 2022 Andrej Karpathy (LICENSE.nn-zero-to-hero); names.txt beside
# it is makemore's (MIT, LICENSE.makemore).
# Changes, and nothing else:
# - the import lines (topograd in torch's place; "# was:" keeps the published line);
# - cells 28 and 31, plots, left out (and the matplotlib import and %matplotlib with them);
# - cell 4 reads words[:5], not words: cells 5 to 19 ran on those 5 names' 32 examples in the
#   lecture (cell 19 indexes torch.arange(32)), and on every name cell 19 cannot run;
# - the training loop of cell 27 cut from 200,000 steps to 300.
# tests/test_programs.py runs it as published (each "# was:" line put back) and as here, cell
# by cell as Jupyter does, and compares what each cell prints and shows.

# %% cell 0
import topograd as torch  # was: import torch
import topograd.nn.functional as F  # was: import torch.nn.functional as F

# %% cell 1
# read in all the words
words = open('names.txt', 'r').read().splitlines()
words[:8]

# %% cell 2
len(words)

# %% cell 3
# build the vocabulary of characters and mappings to/from integers
chars = sorted(list(set(''.join(words))))
stoi = {s:i+1 for i,s in enumerate(chars)}
stoi['.'] = 0
itos = {i:s for s,i in stoi.items()}
print(itos)

# %% cell 4
# build the dataset

block_size = 3 # context length: how many characters do we take to predict the next one?
X, Y = [], []
for w in words[:5]:
  
  #print(w)
  context = [0] * block_size
  for ch in w + '.':
    ix = stoi[ch]
    X.append(context)
    Y.append(ix)
    #print(''.join(itos[i] for i in context), '--->', itos[ix])
    context = context[1:] + [ix] # crop and append
  
X = torch.tensor(X)
Y = torch.tensor(Y)

# %% cell 5
X.shape, X.dtype, Y.shape, Y.dtype

# %% cell 6
# build the dataset
block_size = 3 # context length: how many characters do we take to predict the next one?

def build_dataset(words):  
  X, Y = [], []
  for w in words:

    #print(w)
    context = [0] * block_size
    for ch in w + '.':
      ix = stoi[ch]
      X.append(context)
      Y.append(ix)
      #print(''.join(itos[i] for i in context), '--->', itos[ix])
      context = context[1:] + [ix] # crop and append

  X = torch.tensor(X)
  Y = torch.tensor(Y)
  print(X.shape, Y.shape)
  return X, Y

import random
random.seed(42)
random.shuffle(words)
n1 = int(0.8*len(words))
n2 = int(0.9*len(words))

Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:n2])
Xte, Yte = build_dataset(words[n2:])

# %% cell 7
C = torch.randn((27, 2))

# %% cell 8
emb = C[X]
emb.shape

# %% cell 9
W1 = torch.randn((6, 100))
b1 = torch.randn(100)

# %% cell 10
h = torch.tanh(emb.view(-1, 6) @ W1 + b1)

# %% cell 11
h

# %% cell 12
h.shape

# %% cell 13
W2 = torch.randn((100, 27))
b2 = torch.randn(27)

# %% cell 14
logits = h @ W2 + b2

# %% cell 15
logits.shape

# %% cell 16
counts = logits.exp()

# %% cell 17
prob = counts / counts.sum(1, keepdims=True)

# %% cell 18
prob.shape

# %% cell 19
loss = -prob[torch.arange(32), Y].log().mean()
loss

# %% cell 20
# ------------ now made respectable :) ---------------

# %% cell 21
Xtr.shape, Ytr.shape # dataset

# %% cell 22
g = torch.Generator().manual_seed(2147483647) # for reproducibility
C = torch.randn((27, 10), generator=g)
W1 = torch.randn((30, 200), generator=g)
b1 = torch.randn(200, generator=g)
W2 = torch.randn((200, 27), generator=g)
b2 = torch.randn(27, generator=g)
parameters = [C, W1, b1, W2, b2]

# %% cell 23
sum(p.nelement() for p in parameters) # number of parameters in total

# %% cell 24
for p in parameters:
  p.requires_grad = True

# %% cell 25
lre = torch.linspace(-3, 0, 1000)
lrs = 10**lre

# %% cell 26
lri = []
lossi = []
stepi = []

# %% cell 27
for i in range(300):
  
  # minibatch construct
  ix = torch.randint(0, Xtr.shape[0], (32,))
  
  # forward pass
  emb = C[Xtr[ix]] # (32, 3, 10)
  h = torch.tanh(emb.view(-1, 30) @ W1 + b1) # (32, 200)
  logits = h @ W2 + b2 # (32, 27)
  loss = F.cross_entropy(logits, Ytr[ix])
  #print(loss.item())
  
  # backward pass
  for p in parameters:
    p.grad = None
  loss.backward()
  
  # update
  #lr = lrs[i]
  lr = 0.1 if i < 100000 else 0.01
  for p in parameters:
    p.data += -lr * p.grad

  # track stats
  #lri.append(lre[i])
  stepi.append(i)
  lossi.append(loss.log10().item())

#print(loss.item())

# %% cell 28: plt.plot(stepi, lossi) (a plot), left out

# %% cell 29
emb = C[Xtr] # (32, 3, 2)
h = torch.tanh(emb.view(-1, 30) @ W1 + b1) # (32, 100)
logits = h @ W2 + b2 # (32, 27)
loss = F.cross_entropy(logits, Ytr)
loss

# %% cell 30
emb = C[Xdev] # (32, 3, 2)
h = torch.tanh(emb.view(-1, 30) @ W1 + b1) # (32, 100)
logits = h @ W2 + b2 # (32, 27)
loss = F.cross_entropy(logits, Ydev)
loss

# %% cell 31: the plot of the embedding C (matplotlib), left out

# %% cell 32
# training split, dev/validation split, test split
# 80%, 10%, 10%

# %% cell 33
context = [0] * block_size
C[torch.tensor([context])].shape

# %% cell 34


# sample from the model
g = torch.Generator().manual_seed(2147483647 + 10)

for _ in range(20):
    
    out = []
    context = [0] * block_size # initialize with all ...
    while True:
      emb = C[torch.tensor([context])] # (1,block_size,d)
      h = torch.tanh(emb.view(1, -1) @ W1 + b1)
      logits = h @ W2 + b2
      probs = F.softmax(logits, dim=1)
      ix = torch.multinomial(probs, num_samples=1, generator=g).item()
      context = context[1:] + [ix]
      out.append(ix)
      if ix == 0:
        break
    
    print(''.join(itos[i] for i in out))

# %% cell 35

