"""What a scenario may hold, and float64's margins: the limits every layer checks against."""

# What a scenario may hold. Matrices this large come from .npy/.npz files: YAML text is read a
# value at a time, so what it may hold is bounded apart (MAX_YAML_*), and a refused file is
# refused early, in well under 2 s and 200 MB.
MAX_T = 16_384  # tokens
MAX_DIM = 4096  # every width: d_k, d_v, d_model
MAX_HEADS = 64  # attention heads
MAX_NUMBERS = 16_000_000  # the input matrices' numbers in all
MAX_FILE_BYTES = 16 * 2**20  # a scenario's YAML text
MAX_YAML_NODES = 500_000  # YAML values written out in one file
MAX_YAML_EXPANDED = 4_000_000  # YAML values counting each alias as all it stands for
MAX_DEPTH = 64  # YAML nesting
MAX_TOKEN_LENGTH = 256  # characters in a token, and in a variant's name
MAX_TITLE_LENGTH = 1000  # characters in a title (and in focus, a file name, …)
MAX_DESCRIPTION_LENGTH = 100_000
V_LIMIT = 1e307  # |V| below this: a weighted average of values could round past float64
