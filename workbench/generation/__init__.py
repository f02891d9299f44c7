"""What a generator sees and says: the numbered-source context (``context``) and cited answers (``answer``)."""
