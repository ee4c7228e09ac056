"""What the service sends, recorded by the SDK as shapes: read, placed in a document, learned."""
