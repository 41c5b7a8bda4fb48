#if OpenAPI
#endif
