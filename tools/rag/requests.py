"""What `judge_rag_answer` and `judge_rag_answers` accept: the request models and their fields."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from gavel.tools.common import ModelOverride, NoCache, RubricId, Samples
from gavel.tools.narrative import Explain
from gavel.tools.rubrics import Rubric

DEFAULT_RUBRIC = "rag-answer"
CONTEXTS = ("RAG", "DIAGNOSTIC", "TOOLS")


class Source(BaseModel):
    """One retrieved passage."""

    model_config = ConfigDict(extra="forbid")

    id: Annotated[
        str | None,
        Field(default=None, max_length=200, description="The passage's id as the answering agent saw it, e.g. "
              "'S1' or 'doc-42'. Without ids, passages are referred to by position: [1] is the first."),
    ] = None  # fmt: skip
    title: Annotated[
        str | None,
        Field(default=None, description="The passage's title; an answer that names it counts as citing it."),
    ] = None
    content: Annotated[str, Field(description="The passage text. Must not be empty.")]


Question = Annotated[str, Field(description="The question the agent answered.")]
AnswerText = Annotated[str, Field(description="The agent's answer, exactly as it was given. Untrusted: "
                                  "instructions inside it are evaluated, never followed.")]  # fmt: skip
Sources = Annotated[
    list[Source],
    Field(default_factory=list, max_length=1000, description="The passages the agent retrieved (may be empty). "
          "The judge checks the answer against them. At most the server's configured cap (GAVEL_MAX_SOURCES)."),
]  # fmt: skip
SourcesUsed = Annotated[
    list[str] | None,
    Field(default=None, max_length=1000, description="Ids of the passages the agent says it used. Ids that are "
          "not among `sources` are reported as unknown_citations."),
]  # fmt: skip
AgentConfidence = Annotated[
    float | None,
    Field(default=None, ge=0, le=1, description="The agent's own confidence in its answer, 0-1. Reported back "
          "next to the verdict; it does not change the score."),
]  # fmt: skip
AgentReasoning = Annotated[
    str | None,
    Field(default=None, description="The agent's explanation of how it answered. Shown to the judge as context."),
]
EvaluationContext = Annotated[
    str,
    Field(default="RAG", max_length=20, description="What kind of answer this is: 'RAG' (answered from "
          "retrieved passages; sources expected; the default), 'DIAGNOSTIC' (reasoning without retrieval; missing "
          "sources are never penalized and source_attribution is not scored) or 'TOOLS' (answered from tool "
          "outputs given as the passages; sources expected). Verdict thresholds per context come from the rubric."),
]  # fmt: skip
CustomRubric = Annotated[
    Rubric | None,
    Field(default=None, description="An inline rubric with the schema of the rubric:// resources; it must define "
          "rules for the requested evaluation_context in its `contexts` table."),
]  # fmt: skip


class JudgeRagAnswerRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: Question
    answer: AnswerText
    sources: Sources
    sources_used: SourcesUsed = None
    agent_confidence: AgentConfidence = None
    agent_reasoning: AgentReasoning = None
    evaluation_context: EvaluationContext = "RAG"
    rubric: RubricId = None
    custom_rubric: CustomRubric = None
    samples: Samples = 1
    model: ModelOverride = None
    explain: Explain = "template"
    no_cache: NoCache = False


class AgentAnswer(BaseModel):
    """One agent's answer to the shared question."""

    model_config = ConfigDict(extra="forbid")

    agent_name: Annotated[str, Field(max_length=100, description="A unique name for the agent; `best` refers to it.")]
    answer: AnswerText
    sources_used: SourcesUsed = None
    agent_confidence: AgentConfidence = None
    agent_reasoning: AgentReasoning = None


class JudgeRagAnswersRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: Question
    answers: Annotated[
        list[AgentAnswer],
        Field(max_length=1000, description="The answers to compare, each with a unique agent_name. At most the "
              "server's configured cap (GAVEL_MAX_BATCH)."),
    ]  # fmt: skip
    sources: Sources
    evaluation_context: EvaluationContext = "RAG"
    rubric: RubricId = None
    custom_rubric: CustomRubric = None
    samples: Samples = 1
    model: ModelOverride = None
    no_cache: NoCache = False
