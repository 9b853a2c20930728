"""Model providers: the protocol, the litellm adapter and the scripted test double."""
