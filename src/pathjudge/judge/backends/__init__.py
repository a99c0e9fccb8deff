"""Judge backends behind one interface."""
