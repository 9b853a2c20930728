"""Context management: trigger, summary request, structured summary, rewrite, tool pairs."""
