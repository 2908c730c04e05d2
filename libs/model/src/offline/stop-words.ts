/**
 * Compact stop and filler lists for the offline provider. They only need to keep function words
 * and chit-chat out of tags and key points; recall matters more than completeness.
 */

const words = (list: string): Set<string> => new Set(list.trim().split(/\s+/u));

/** English function words plus conversational verbs that never make a good tag. */
export const ENGLISH_STOP_WORDS = words(`
a about above after again against all almost also although always am among an and another any
anyone anything anyway are around as ask asked at away back be because been before being below
best better between both but by can cannot could did do does doing done down during each either
else enough even ever every everything few for from further get gets getting give go goes going
gone good got great had has have having he her here hers herself him himself his how however i
if in into is it its itself just keep kind know last later least less let lets like little look
lot lots made make many may maybe me mean might mine more most much must my myself need needs
never new next no nor not nothing now of off often oh ok okay on once one only or other others
our ours ourselves out over own part please pretty probably put quite rather really right said
same say says see seem seems several shall she should since so some someone something sometimes
soon still such sure take tell than thank thanks that the their theirs them themselves then there
these they thing things think this those though through thus time to today together too tomorrow
try under until up upon us use used using very want wanted was way we well were what whatever
when where whether which while who whom whose why will with within without would yeah yes yet
you your yours yourself yourselves yesterday week day hi hello hey sounds actually also bit
got let's via per etc uses usually work works cool awesome nice wow amazing super glad lol
exciting help helps helped
january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday morning evening night
`);

/** Chinese function words and generic verbs/time words, matched against whole segments. */
export const CHINESE_STOP_WORDS = words(`
我们 你们 他们 她们 它们 咱们 自己 大家 这个 那个 这些 那些 这样 那样 这里 那里 这么 那么 什么
怎么 怎样 为什么 如何 哪里 哪个 可以 可能 应该 需要 一下 一些 一个 一样 一点 就是 还是 或者 而且
因为 所以 但是 不过 然后 如果 虽然 只是 觉得 认为 知道 现在 已经 没有 不是 还有 时候 问题 东西
事情 非常 比较 特别 真的 其实 好像 一直 一起 起来 出来 进行 的话 之后 之前 以后 以前 今天 明天
昨天 下周 上周 本周 这周 下个月 上个月 今年 明年 去年 谢谢 好的 你好 您好 嗯嗯 明白 收到 感谢
没错 同意 一定 肯定 当然 能够 也许 关于 对于 以及 并且 开始 地方 时间 只有 这种 那种 有点 有些
所有 很多 不少 而已 周一 周二 周三 周四 周五 周六 周日 周末 星期一 星期二 星期三 星期四
星期五 星期六 星期天 星期日 上午 下午 晚上 早上 吧 呢 啊 呀 嘛 哦
`);

/**
 * Single Han characters that are grammar, not content: they never start or continue a
 * bigram or a guessed name.
 */
export const HAN_FUNCTION_CHARS = new Set(
  Array.from(
    '的了在是和与也就都要会把被给跟对说从到向让叫去来又还很太更最不没有个这那哪我你他她它们吗呢吧啊呀嘛着过地得之其而或及等用做看想能可以上下中里后前将已并但却如若则因为所于比再才只每各该此些么哦嗯呃一二三四五六七八九十两几多少换成当应请吧啦呗',
  ),
);

/** Common single-character surnames; a following short Han run is read as a person's name. */
export const HAN_SURNAMES = new Set(
  Array.from(
    '李王张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯董萧曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶阎余潘杜戴夏钟汪田姜范石姚谭廖邹熊金陆郝孔白崔康毛邱秦史顾侯邵孟龙段雷钱汤尹黎武乔贺赖龚',
  ),
);

/**
 * Words that, alone or together, make a sentence chit-chat (MM-BLK-11's filler list widened
 * with greetings). A sentence is filler only if every word in it is in this set.
 */
export const FILLER_WORDS = words(`
ok okay k kk got it thanks thank you yes yeah yep yup no nope correct sure hi hello hey bye
goodbye see soon later great good nice cool awesome perfect fine alright right wow haha hahaha
lol hmm um uh oh ah so much a lot very really well sounds that this is are how doing going up
welcome morning afternoon evening night have all the best cheers np problem noted understood
indeed exactly i me too and for your help appreciate appreciated ty thx choice idea makes
sense point
好 好的 嗯 嗯嗯 明白 收到 谢谢 感谢 辛苦 辛苦了 是 是的 对 对的 没错 可以 行 同意 就这样 你好 您好
哈哈 哈哈哈 哦 噢 啊 好吧 了 呀 啦 呢 吧 谢 多谢 不客气 没问题 再见 拜拜 早上好 晚安 早 太 太好了 棒
很 很好 了解 知道 知道了 ok 明白了 好滴 嗯呢 对啊 是啊 行吧 可以的 没事 哈
`);

/** Courtesy lines an assistant adds around an answer; they carry nothing worth remembering. */
export const BOILERPLATE =
  /\b(let me know|hope (this|that|it) helps|feel free to|happy to help|glad (i|to) (could )?help|anything else|great question|good question)\b|希望对你有帮助|如有其他问题|还有什么(需要|问题)|随时告诉我|有问题随时/iu;
