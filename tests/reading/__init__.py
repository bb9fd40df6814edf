"""Reading a scenario: the format, its errors, hostile and oversized files, .npy/.npz inputs, the
template, model indexes."""
