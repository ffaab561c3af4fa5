MATCH (u:LLMUsage)
RETURN u.stage AS stage, u.calls AS calls, u.cached AS cached, u.failed AS failed,
       u.prompt_tokens AS prompt_tokens, u.completion_tokens AS completion_tokens
ORDER BY stage
