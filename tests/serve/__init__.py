"""The app served to a class: --serve, its browsers (Chromium), recovery in the class folder,
following the teacher."""
