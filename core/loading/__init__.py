"""A scenario file read whole, its lesson and expectations included; model indexes; the
built-ins."""
